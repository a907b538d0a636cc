import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import type { ClientInstanceSeen } from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { builtInStrategies } from "../strategies/built-in-strategies.js";
import { ClientApplicationService } from "./client-application-service.js";
import { createClientApplicationStore } from "./client-application-store.js";

const person = { name: "ada", userId: 7 };

function seen(overrides: Partial<ClientInstanceSeen> = {}): ClientInstanceSeen {
  return {
    appName: "shop",
    instanceId: "i1",
    sdkType: "backend",
    environment: "development",
    projects: ["default"],
    lastSeen: "2030-01-01T00:00:00.000Z",
    ...overrides,
  };
}

describe("ClientApplicationService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let service: ClientApplicationService;
  const now = new Date("2030-01-02T00:00:00.000Z");

  beforeAll(async () => {
    temp = await tempEngine("client-apps");
    engine = temp.engine;
    events = await EventStore.create(engine, () => now);
    service = new ClientApplicationService({
      applications: await createClientApplicationStore(engine),
      strategies: { list: async () => [...builtInStrategies] },
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await temp.remove();
  });

  const createdEvents = async (appName: string) =>
    (await events.list({ type: "application-created" })).events.filter((event) => (event.data as { appName: string }).appName === appName);

  it("records a registration as an application with one instance, announced once", async () => {
    const registration = seen({
      sdkVersion: "unleash-client-node:6.0.0",
      strategies: ["default", "my-custom"],
      clientIp: "10.0.0.1",
      started: "2029-12-31T23:00:00.000Z",
      interval: 15000,
    });
    await service.recordSeen([registration]);
    await service.recordSeen([{ ...registration, lastSeen: "2030-01-01T00:01:00.000Z" }]);

    const details = await service.get("shop");
    expect(details.strategies).toEqual([builtInStrategies.find((s) => s.name === "default"), { name: "my-custom", notFound: true }]);
    expect(details.instances).toEqual([
      {
        appName: "shop",
        instanceId: "i1",
        sdkVersion: "unleash-client-node:6.0.0",
        sdkType: "backend",
        clientIp: "10.0.0.1",
        environment: "development",
        lastSeen: "2030-01-01T00:01:00.000Z",
        createdAt: "2030-01-01T00:00:00.000Z",
      },
    ]);
    expect(details).toMatchObject({ description: null, url: null, color: null, icon: null, links: { self: "/api/applications/shop" } });
    const created = await createdEvents("shop");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ createdBy: "system", data: { appName: "shop", strategies: ["default", "my-custom"] } });
  });

  it("moves lastSeen on from metrics and keeps the registration's details", async () => {
    await service.recordSeen([seen({ lastSeen: "2030-01-01T00:05:00.000Z", seenToggles: ["b", "a"] })]);
    await service.recordSeen([seen({ lastSeen: "2030-01-01T00:06:00.000Z", seenToggles: ["a", "c"] })]);
    const details = await service.get("shop");
    expect(details.instances[0]).toMatchObject({
      sdkVersion: "unleash-client-node:6.0.0",
      clientIp: "10.0.0.1",
      lastSeen: "2030-01-01T00:06:00.000Z",
    });
    expect(details.seenToggles).toEqual(["a", "b", "c"]);
    expect(details.strategies.map((s) => s.name)).toEqual(["default", "my-custom"]);
  });

  it("an application first seen through metrics exists with unknown details", async () => {
    await service.recordSeen([seen({ appName: "worker", instanceId: "w1", sdkType: "frontend", projects: ["default", "other"] })]);
    const details = await service.get("worker");
    expect(details.strategies).toEqual([]);
    expect(details.instances).toEqual([
      expect.objectContaining({ instanceId: "w1", sdkVersion: null, clientIp: null, sdkType: "frontend" }),
    ]);
  });

  it("lists applications with their usage, filtered by name and paged", async () => {
    await service.recordSeen([seen({ appName: "worker", instanceId: "w2", environment: "production", projects: ["other"] })]);
    const all = await service.list({ offset: 0, limit: 1000 });
    expect(all.total).toBe(2);
    expect(all.applications.map((app) => app.appName)).toEqual(["shop", "worker"]);
    expect(all.applications[1]).toMatchObject({
      createdBy: "system",
      strategies: [],
      usage: [
        { project: "default", environments: ["development"] },
        { project: "other", environments: ["development", "production"] },
      ],
    });
    expect((await service.list({ query: "WORK", offset: 0, limit: 10 })).applications.map((app) => app.appName)).toEqual(["worker"]);
    expect(await service.list({ query: "(", offset: 0, limit: 10 })).toEqual({ applications: [], total: 0 });
    const page = await service.list({ offset: 1, limit: 1 });
    expect(page).toMatchObject({ total: 2, applications: [{ appName: "worker" }] });
  });

  it("updates what people set, creating the application when it is new", async () => {
    await service.update("shop", { description: "The shop", color: "red" }, person);
    await service.update("shop", { url: "https://shop.example" }, person);
    expect(await service.get("shop")).toMatchObject({ description: "The shop", color: "red", url: "https://shop.example", icon: null });
    expect(await createdEvents("shop")).toHaveLength(1);

    await service.update("billing", { icon: "money" }, person);
    expect(await service.get("billing")).toMatchObject({ icon: "money", description: null, instances: [], strategies: [] });
    expect((await createdEvents("billing"))[0]).toMatchObject({ createdBy: "ada", createdByUserId: 7 });
  });

  it("deletes an application with its instances; an unknown one is no error", async () => {
    await service.delete("shop");
    await expect(service.get("shop")).rejects.toThrow(NotFoundError);
    await expect(service.get("shop")).rejects.toThrow("Could not find appName=shop");
    await service.delete("shop");
    await service.recordSeen([seen({ instanceId: "i9" })]);
    expect((await service.get("shop")).instances.map((i) => i.instanceId)).toEqual(["i9"]);
  });
});
