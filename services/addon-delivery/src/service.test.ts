import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { topics, type AddonConfig, type DomainEvent } from "@vexil/contracts";
import { createMemoryBus, type Bus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { createLogger } from "@vexil/logger";
import type { VexilService } from "@vexil/runtime";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import type { OutboundResult, Sender } from "./delivery/http-sender.js";
import type { OutboundRequest } from "./providers/formatters.js";
import { createAddonDeliveryService } from "./service.js";

const logger = createLogger({ service: "addon-delivery-test", level: "silent" });
const fastRetries = { maxAttempts: 3, backoffBaseMs: 5, backoffMaxMs: 20, uiUrl: "https://flags.example.com" };

let nextEventId = 1;
function event(overrides: Partial<DomainEvent> = {}): DomainEvent {
  return {
    id: String(nextEventId++),
    type: "feature-created",
    createdAt: new Date().toISOString(),
    createdBy: "alice",
    createdByUserId: 1,
    project: "default",
    environment: "production",
    featureName: "flag",
    data: null,
    preData: null,
    tags: [],
    ...overrides,
  };
}

function webhook(id: number, overrides: Partial<AddonConfig> = {}): AddonConfig {
  return {
    id,
    provider: "webhook",
    enabled: true,
    parameters: { url: `https://hooks.example.com/${id}` },
    events: ["feature-created"],
    projects: [],
    environments: [],
    ...overrides,
  };
}

describe("addon delivery service", () => {
  let dir: string;
  let store: StoreEngine;
  let bus: Bus;
  let addons: AddonConfig[];
  let sent: OutboundRequest[];
  let answer: (request: OutboundRequest) => Promise<OutboundResult>;
  /** How often the service asked for the addon list: it asks again on every change it hears of. */
  let listRequests: number;
  let service: VexilService | undefined;
  const send: Sender = (request) => {
    sent.push(request);
    return answer(request);
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-delivery-"));
    store = await createEmbeddedEngine({ dir });
    bus = createMemoryBus();
    addons = [];
    sent = [];
    answer = async () => ({ statusCode: 200, body: "" });
    listRequests = 0;
    // Stands in for admin: answers with the current list.
    bus.reply(topics.addonsList, () => {
      listRequests++;
      return { addons };
    });
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await bus.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start() {
    service = await createAddonDeliveryService({
      engines: { store, bus, cache: createMemoryCache() },
      logger,
      settings: fastRetries,
      send,
    });
    await service.start();
  }
  const publish = (e: DomainEvent) => bus.publishEvent(topics.domainEvents.of(e.type), e, { msgId: e.id });
  const urlsSent = () => sent.map((r) => r.url);
  const deliveryLog = async (addonId: number) =>
    (await bus.request(topics.addonDeliveries, { addonId, limit: 100, offset: 0 })).integrationEvents;
  /**
   * Resolves once the service has fetched the addon list again after `before` fetches. The in-memory
   * bus answers within microtasks, which all run before the timer that checks, so the new list is in force.
   */
  const listFetchedAfter = (before: number) => vi.waitFor(() => expect(listRequests).toBeGreaterThan(before));

  it("delivers to each addon that takes the event: type, project and environment", async () => {
    addons = [
      webhook(1),
      webhook(2, { events: ["feature-archived"] }),
      webhook(3, { projects: ["other"] }),
      webhook(4, { environments: ["production"], projects: ["default"] }),
      webhook(5, { environments: ["development"] }),
      webhook(6, { enabled: false }),
    ];
    await start();
    const e = event();
    await publish(e);
    await vi.waitFor(() => expect(urlsSent().sort()).toEqual(["https://hooks.example.com/1", "https://hooks.example.com/4"]));
    expect(JSON.parse(sent[0].body)).toEqual(e);
    expect(sent[0].headers["idempotency-key"]).toMatch(new RegExp(`^${e.id}:[14]$`));
  });

  it("matches an event without project or environment only to addons that take all", async () => {
    addons = [webhook(1, { events: ["addon-config-created"] }), webhook(2, { events: ["addon-config-created"], projects: ["default"] })];
    await start();
    const first = event({ type: "addon-config-created", project: null, environment: null, featureName: null });
    await publish(first);
    // A barrier: events are matched one at a time in stream order, so once the marker reached addon 1
    // the first event has been matched to every addon, and a delivery wrongly queued for 2 is in its log.
    const marker = event({ type: "addon-config-created", project: null, environment: null, featureName: null });
    await publish(marker);
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(urlsSent()).toEqual(["https://hooks.example.com/1", "https://hooks.example.com/1"]);
    expect(sent.map((request) => JSON.parse(request.body).id)).toEqual([first.id, marker.id]);
    expect(await deliveryLog(2)).toEqual([]);
  });

  it("applies a configuration change to the next event, announced or seen in the stream", async () => {
    await start();
    await publish(event());
    addons = [webhook(1)];
    // Announced: admin publishes addons.changed after the commit.
    const fetched = listRequests;
    bus.publish(topics.addonsChanged, { addonId: 1 });
    await listFetchedAfter(fetched);
    await publish(event());
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    // Not announced, but the addon-config event precedes the next event in the stream.
    addons = [webhook(1), webhook(2)];
    await publish(event({ type: "addon-config-created", project: null, environment: null, featureName: null }));
    await publish(event());
    await vi.waitFor(() => expect(urlsSent()).toContain("https://hooks.example.com/2"));
    expect(sent).toHaveLength(3);
  });

  it("retries a failing target with backoff and logs every attempt, then one success", async () => {
    addons = [webhook(1)];
    let calls = 0;
    answer = async () => (++calls <= 2 ? { statusCode: 500, body: "boom" } : { statusCode: 204, body: "" });
    await start();
    const e = event();
    await publish(e);
    await vi.waitFor(async () => expect((await deliveryLog(1))[0]?.state).toBe("success"));
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers["idempotency-key"]))).toEqual(new Set([`${e.id}:1`]));
    const log = await deliveryLog(1);
    expect(log.map((entry) => [entry.state, entry.details.statusCode, entry.details.attempt])).toEqual([
      ["success", 204, 3],
      ["retrying", 500, 2],
      ["retrying", 500, 1],
    ]);
    expect(log[2].stateDetails).toContain("Target answered 500: boom");
    expect(log[0]).toMatchObject({ integrationId: 1, event: { id: e.id }, details: { eventId: e.id, eventType: "feature-created" } });
  });

  it("records a delivery as failed once the attempts run out, then moves on", async () => {
    addons = [webhook(1)];
    answer = async (r) => {
      if (JSON.parse(r.body).featureName === "doomed") throw new Error("connect ECONNREFUSED");
      return { statusCode: 200, body: "" };
    };
    await start();
    await publish(event({ featureName: "doomed" }));
    await publish(event({ featureName: "fine" }));
    await vi.waitFor(async () => expect((await deliveryLog(1))[0]?.state).toBe("success"));
    const log = await deliveryLog(1);
    expect(log.map((entry) => entry.state)).toEqual(["success", "failed", "retrying", "retrying"]);
    expect(log[1].stateDetails).toMatch(/ECONNREFUSED \(gave up after 3 attempts\)/);
    expect(log[1].details.statusCode).toBeNull();
  });

  it("does not retry a refused target", async () => {
    addons = [webhook(1, { parameters: { url: "https://hooks.example.com/1", bodyTemplate: "{{#unclosed}}" } })];
    await start();
    await publish(event());
    await vi.waitFor(async () => expect((await deliveryLog(1))[0]?.state).toBe("failed"));
    expect((await deliveryLog(1))[0].stateDetails).toMatch(/^Refused: body template/);
    expect(sent).toHaveLength(0);
  });

  it("keeps order per addon while a slow target does not hold up another", async () => {
    addons = [webhook(1), webhook(2)];
    let releaseSlow: () => void = () => {};
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    answer = async (r) => {
      if (r.url.endsWith("/1")) await slowGate;
      return { statusCode: 200, body: "" };
    };
    await start();
    const events = Array.from({ length: 20 }, (_, i) => event({ featureName: `f${i}` }));
    for (const e of events) await publish(e);
    const fastNames = () => sent.filter((r) => r.url.endsWith("/2")).map((r) => JSON.parse(r.body).featureName);
    await vi.waitFor(() => expect(fastNames()).toHaveLength(20));
    expect(fastNames()).toEqual(events.map((e) => e.featureName));
    expect(sent.filter((r) => r.url.endsWith("/1"))).toHaveLength(1);
    releaseSlow();
    const slowNames = () => sent.filter((r) => r.url.endsWith("/1")).map((r) => JSON.parse(r.body).featureName);
    await vi.waitFor(() => expect(slowNames()).toHaveLength(20));
    expect(slowNames()).toEqual(events.map((e) => e.featureName));
  });

  it("resumes unfinished deliveries after a restart and sends none twice", async () => {
    addons = [webhook(1)];
    let gate: Promise<void> = new Promise(() => {});
    let open: () => void = () => {};
    gate = new Promise<void>((resolve) => (open = resolve));
    answer = async (r) => {
      if (JSON.parse(r.body).featureName !== "f0") await gate;
      return { statusCode: 200, body: "" };
    };
    await start();
    for (let i = 0; i < 5; i++) await publish(event({ featureName: `f${i}` }));
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    // Stop while f1 is in flight: it is recorded when it finishes, the rest wait in the store.
    const stopping = service!.stop();
    open();
    await stopping;
    service = undefined;
    expect(sent).toHaveLength(2);
    await start();
    // Once all five are recorded as delivered nothing is left to send, so the count below is final.
    await vi.waitFor(async () => expect((await deliveryLog(1)).filter((e) => e.state === "success")).toHaveLength(5));
    expect(sent.map((r) => JSON.parse(r.body).featureName)).toEqual(["f0", "f1", "f2", "f3", "f4"]);
  });

  it("marks deliveries to an addon deleted before they were made as failed", async () => {
    addons = [webhook(1)];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    answer = async () => {
      await gate;
      return { statusCode: 500, body: "" };
    };
    await start();
    await publish(event());
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    addons = [];
    const fetched = listRequests;
    await publish(event({ type: "addon-config-deleted", project: null, environment: null, featureName: null }));
    await listFetchedAfter(fetched);
    open();
    await vi.waitFor(async () => expect((await deliveryLog(1))[0]?.state).toBe("failed"));
    expect((await deliveryLog(1)).map((entry) => entry.state)).toEqual(["failed", "retrying"]);
    expect((await deliveryLog(1))[0].stateDetails).toMatch(/deleted/);
    expect(sent).toHaveLength(1);
  });

  it("waits for admin before handling events, losing none", async () => {
    const lonelyBus = createMemoryBus();
    const requests = vi.spyOn(lonelyBus, "request");
    const listAsked = () => requests.mock.calls.filter(([topic]) => topic === topics.addonsList).length;
    const lonelyStore = await createEmbeddedEngine({ dir: path.join(dir, "lonely") });
    const lonely = await createAddonDeliveryService({
      engines: { store: lonelyStore, bus: lonelyBus, cache: createMemoryCache() },
      logger,
      settings: fastRetries,
      send,
    });
    await lonely.start();
    const e = event();
    await lonelyBus.publishEvent(topics.domainEvents.of(e.type), e, { msgId: e.id });
    // Asked once at start and again for the event, both unanswered: the event was handled without admin.
    await vi.waitFor(() => expect(listAsked()).toBeGreaterThanOrEqual(2));
    lonelyBus.reply(topics.addonsList, () => ({ addons: [webhook(9)] }));
    await vi.waitFor(() => expect(urlsSent()).toEqual(["https://hooks.example.com/9"]), { timeout: 3000 });
    await lonely.stop();
    await lonelyBus.close();
    await lonelyStore.close();
  });
});
