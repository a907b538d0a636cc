import { describe, expect, it } from "vitest";
import type { TokenGrant } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { topics, type ClientInstancesSeen } from "@vexil/contracts";
import { ClientInstances } from "./client-instances.js";

const grant: TokenGrant = {
  digest: "d",
  tokenName: "sdk",
  type: "client",
  environment: "development",
  projects: ["default"],
  expiresAt: null,
};
const caller = { grant, environment: "development", clientIp: "10.0.0.1" };

function collect() {
  const bus = createMemoryBus();
  const published: ClientInstancesSeen[] = [];
  bus.subscribe(topics.clientInstancesSeen, async (payload) => {
    published.push(payload);
  });
  let now = new Date("2024-05-01T10:00:00.000Z");
  const instances = new ClientInstances({ bus, clock: () => now, flushIntervalMs: 60_000 });
  return { instances, published, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe("ClientInstances", () => {
  it("publishes one entry per app and instance, keeping registration details when metrics follow", async () => {
    const { instances, published, advance } = collect();
    instances.registered(
      {
        appName: "shop",
        instanceId: "i1",
        sdkVersion: "unleash-client-node:6.0.0",
        strategies: ["default"],
        started: "2024-05-01T09:00:00Z",
        interval: 15000,
        connectVia: [{ appName: "edge", instanceId: "e1" }, { bogus: true }],
      },
      "backend",
      caller,
    );
    advance(500);
    instances.sentMetrics({ appName: "shop", instanceId: "i1" }, "backend", caller, ["a"]);
    instances.sentMetrics({ appName: "shop", instanceId: "i1" }, "backend", caller, ["b", "a"]);
    instances.registered({ appName: "web" }, "frontend", caller);
    instances.stop();
    await expect.poll(() => published.length).toBe(1);
    expect(published[0]!.instances).toEqual([
      {
        appName: "shop",
        instanceId: "i1",
        sdkType: "backend",
        environment: "development",
        projects: ["default"],
        clientIp: "10.0.0.1",
        sdkVersion: "unleash-client-node:6.0.0",
        strategies: ["default"],
        started: "2024-05-01T09:00:00.000Z",
        interval: 15000,
        connectVia: [{ appName: "edge", instanceId: "e1" }],
        seenToggles: ["a", "b"],
        lastSeen: "2024-05-01T10:00:00.500Z",
      },
      {
        appName: "web",
        instanceId: "default",
        sdkType: "frontend",
        environment: "development",
        projects: ["default"],
        clientIp: "10.0.0.1",
        lastSeen: "2024-05-01T10:00:00.500Z",
      },
    ]);
  });

  it("publishes nothing when no SDK called, and starts a fresh batch after each flush", async () => {
    const { instances, published } = collect();
    instances.flush();
    instances.sentMetrics({ appName: "shop" }, "backend", caller, []);
    instances.flush();
    instances.flush();
    await expect.poll(() => published.length).toBe(1);
    expect(published[0]!.instances).toHaveLength(1);
    expect(published[0]!.instances[0]).not.toHaveProperty("seenToggles");
    instances.stop();
  });
});
