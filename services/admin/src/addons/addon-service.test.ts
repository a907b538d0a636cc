import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AddonRequest } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { AddonService, type AddonServiceDeps } from "./addon-service.js";
import { testSecretBox } from "../secrets/secrets.fixture.js";
import { createAddonStore } from "./addon-store.js";

const actor = { name: "admin", userId: -42 };
const webhook: AddonRequest = {
  provider: "webhook",
  enabled: true,
  parameters: { url: "https://93.184.216.34/hook", authorization: "Bearer s3cret", bodyTemplate: "{{event.type}}" },
  events: ["feature-created"],
};

describe("AddonService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let service: AddonService;
  let announceChange: ReturnType<typeof vi.fn<AddonServiceDeps["announceChange"]>>;
  let fetchDeliveries: ReturnType<typeof vi.fn<AddonServiceDeps["fetchDeliveries"]>>;

  beforeEach(async () => {
    temp = await tempEngine("addons");
    engine = temp.engine;
    events = await EventStore.create(engine);
    announceChange = vi.fn();
    fetchDeliveries = vi.fn(async () => ({ integrationEvents: [] }));
    service = new AddonService({
      addons: await createAddonStore(engine, testSecretBox()),
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => new Date("2024-05-01T12:00:00Z"),
      allowPrivateUrls: false,
      announceChange,
      fetchDeliveries,
    });
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("creates with integer ids, masks sensitive parameters and records an event without them", async () => {
    const first = await service.create(webhook, actor);
    const second = await service.create({ ...webhook, projects: ["default"] }, actor);
    expect(first).toMatchObject({ id: 1, provider: "webhook", description: null, projects: [], environments: [] });
    expect(second.id).toBe(2);
    expect(first.parameters).toEqual({ url: "*****", authorization: "*****", bodyTemplate: "{{event.type}}" });
    expect((await service.get(1)).parameters.url).toBe("*****");
    expect(JSON.stringify(await service.list())).not.toContain("s3cret");
    const { events: logged } = await events.list({ type: "addon-config-created" });
    expect(logged).toHaveLength(2);
    expect(logged[1].data).toMatchObject({ id: 1, provider: "webhook", events: ["feature-created"] });
    expect(JSON.stringify(logged)).not.toContain("s3cret");
    expect(announceChange).toHaveBeenCalledWith(1);
  });

  it("hands the delivery service the parameters in clear", async () => {
    await service.create(webhook, actor);
    expect(await service.configs()).toEqual([
      {
        id: 1,
        provider: "webhook",
        enabled: true,
        parameters: webhook.parameters,
        events: ["feature-created"],
        projects: [],
        environments: [],
      },
    ]);
  });

  it("lists the providers with their parameters and events", async () => {
    const { providers } = await service.list();
    expect(providers.map((p) => p.name)).toEqual(["webhook", "slack", "teams", "datadog"]);
    const webhookDef = providers.find((p) => p.name === "webhook")!;
    expect(webhookDef.parameters.find((p) => p.name === "url")).toMatchObject({ type: "url", required: true, sensitive: true });
    expect(webhookDef.events).toContain("feature-created");
    const datadog = providers.find((p) => p.name === "datadog")!;
    expect(datadog.parameters.filter((p) => p.required).map((p) => p.name)).toEqual(["apiKey"]);
  });

  it("keeps a stored secret sent back as the mask, and replaces it when a new value comes", async () => {
    const { id } = await service.create(webhook, actor);
    await service.update(id, { ...webhook, enabled: false, parameters: { url: "*****", authorization: "*****" } }, actor);
    expect((await service.configs())[0]).toMatchObject({
      enabled: false,
      parameters: { url: webhook.parameters.url, authorization: "Bearer s3cret" },
    });
    await service.update(id, { ...webhook, parameters: { url: "*****", authorization: "Bearer n3w" } }, actor);
    expect((await service.configs())[0].parameters.authorization).toBe("Bearer n3w");
    const { events: updates } = await events.list({ type: "addon-config-updated" });
    expect(updates[1]).toMatchObject({ preData: { enabled: true }, data: { enabled: false } });
  });

  it("refuses the mask when nothing is stored to keep, including after a provider change", async () => {
    await expect(service.create({ ...webhook, parameters: { url: "*****" } }, actor)).rejects.toThrow(/mask/);
    const { id } = await service.create(webhook, actor);
    const slack = {
      provider: "slack",
      enabled: true,
      parameters: { url: "*****", defaultChannel: "general" },
      events: ["feature-created"],
    };
    await expect(service.update(id, slack, actor)).rejects.toThrow(/mask/);
  });

  it.each([
    [{ ...webhook, provider: "carrier-pigeon" }, "body.provider", /Unknown addon provider 'carrier-pigeon'/],
    [{ ...webhook, parameters: { authorization: "x" } }, "body.parameters.url", /Missing required parameter 'url'/],
    [{ ...webhook, parameters: { url: "" } }, "body.parameters.url", /Missing required parameter 'url'/],
    [{ ...webhook, events: ["feature-created", "nope-event"] }, "body.events.1", /Unknown event type 'nope-event'/],
    [{ ...webhook, parameters: { url: "http://10.0.0.5/hook" } }, "body.parameters.url", /10\.0\.0\.5, a private address/],
    [{ ...webhook, parameters: { url: "http://[::1]:80/" } }, "body.parameters.url", /loopback/],
    [{ ...webhook, parameters: { url: "not a url" } }, "body.parameters.url", /not a valid URL/],
    [{ ...webhook, parameters: { url: "https://93.184.216.34", color: "red" } }, "body.parameters.color", /Unknown parameter 'color'/],
    [{ ...webhook, parameters: { url: "https://93.184.216.34", contentType: 5 } }, "body.parameters.contentType", /must be a string/],
    [
      { ...webhook, parameters: { url: "https://93.184.216.34", customHeaders: "notjson" } },
      "body.parameters.customHeaders",
      /JSON object/,
    ],
    [
      { ...webhook, parameters: { url: "https://93.184.216.34", customHeaders: '{"X-A": 1}' } },
      "body.parameters.customHeaders",
      /invalid header 'X-A'/,
    ],
    [
      { provider: "slack", enabled: true, parameters: { url: "https://93.184.216.34" }, events: [] },
      "body.parameters.defaultChannel",
      /defaultChannel/,
    ],
    [{ provider: "datadog", enabled: true, parameters: {}, events: [] }, "body.parameters.apiKey", /apiKey/],
  ])("refuses a bad request with a 400 naming the field (%#)", async (input, field, message) => {
    const err = await service.create(input as AddonRequest, actor).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toMatch(message);
    expect((err as ValidationError).details?.map((d) => d.path)).toContain(field);
    expect((await service.list()).addons).toEqual([]);
    expect((await events.list()).total).toBe(0);
  });

  it("accepts a private target when allowed", async () => {
    const allowing = new AddonService({
      addons: await createAddonStore(engine, testSecretBox()),
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => new Date(),
      allowPrivateUrls: true,
      announceChange,
      fetchDeliveries,
    });
    await expect(allowing.create({ ...webhook, parameters: { url: "http://127.0.0.1:9999/x" } }, actor)).resolves.toMatchObject({ id: 1 });
  });

  it("deletes with an event, and answers 404 for an unknown id everywhere", async () => {
    const { id } = await service.create(webhook, actor);
    await service.remove(id, actor);
    expect((await events.list({ type: "addon-config-deleted" })).events[0].preData).toMatchObject({ id });
    await expect(service.get(id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(id, webhook, actor)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.remove(id, actor)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.deliveries(id, { limit: 10, offset: 0 })).rejects.toBeInstanceOf(NotFoundError);
    expect(fetchDeliveries).not.toHaveBeenCalled();
  });

  it("asks the delivery service for an existing addon's log", async () => {
    const { id } = await service.create(webhook, actor);
    await service.deliveries(id, { limit: 5, offset: 10 });
    expect(fetchDeliveries).toHaveBeenCalledWith({ addonId: id, limit: 5, offset: 10 });
  });
});
