import express from "express";
import { topics, type DomainEvent } from "@vexil/contracts";
import type { Consumer, Subscription } from "@vexil/bus";
import type { Logger } from "@vexil/logger";
import { startRetention, type Engines, type Retention, type VexilService } from "@vexil/runtime";
import { Counter, Gauge, Registry } from "@vexil/metrics";
import { AddonConfigs, addonTakes } from "./addon-configs.js";
import { defaultDeliverySettings, type AddonDeliverySettings } from "./config.js";
import { DeliveryQueue } from "./delivery/delivery-queue.js";
import { DeliveryStore } from "./delivery/delivery-store.js";
import { createHttpSender, type Sender } from "./delivery/http-sender.js";

export interface AddonDeliveryDeps {
  engines: Engines;
  logger: Logger;
  settings?: Partial<AddonDeliverySettings>;
  /** Replaces the HTTP sender (tests). */
  send?: Sender;
  clock?: () => Date;
  /** The process's Prometheus registry. */
  metrics?: Registry;
}

/** Durable consumer name: JetStream remembers how far addon delivery has read. */
export const deliveryConsumerName = "addon-delivery";

/**
 * Consumes the domain-event stream and turns each event into one queued delivery per addon that
 * takes it. The consumer only records deliveries (fast, in stream order) and acks; per-addon
 * workers send them. The delivery log is served to admin over the bus (`addons.deliveries`).
 */
export async function createAddonDeliveryService({
  engines,
  logger,
  settings: overrides,
  send,
  clock = () => new Date(),
  metrics = new Registry(),
}: AddonDeliveryDeps): Promise<VexilService> {
  const settings = { ...defaultDeliverySettings, ...overrides };
  const log = logger.child({ module: "addon-delivery" });
  const store = await DeliveryStore.create(engines.store);
  new Gauge({
    name: "vexil_addon_delivery_queue_depth",
    help: "Addon deliveries waiting to be sent or retried",
    registers: [metrics],
    async collect() {
      this.set(await store.countOpen());
    },
  });
  const attempts = new Counter({
    name: "vexil_addon_delivery_attempts_total",
    help: "Addon delivery attempts, per outcome: success, retrying (failed, will retry), failed (gave up)",
    labelNames: ["outcome"],
    registers: [metrics],
  });
  const configs = new AddonConfigs(engines.bus, log);
  const queue = new DeliveryQueue({
    store,
    configs,
    send: send ?? createHttpSender({ allowPrivate: settings.allowPrivateUrls, timeoutMs: settings.requestTimeoutMs }),
    logger: log,
    ...settings,
    clock,
    onAttempt: (outcome) => attempts.inc({ outcome }),
  });
  let consumer: Consumer | undefined;
  let deliveryLog: Subscription | undefined;
  let retention: Retention | undefined;

  async function handle(event: DomainEvent): Promise<void> {
    // In stream order: an event after an addon change must see the changed configuration.
    const addons = event.type.startsWith("addon-config-") ? await configs.refresh() : await configs.current();
    for (const addon of addons.filter((a) => addonTakes(a, event))) {
      if (await store.enqueue(event, addon.id, clock())) queue.kick(addon.id);
    }
  }

  return {
    // No public paths: the process serves only health and readiness.
    router: express.Router(),
    readiness: [
      {
        name: "event-consumer",
        check: async () => {
          if (!consumer) throw new Error("not consuming yet");
        },
      },
    ],
    async start() {
      deliveryLog = engines.bus.reply(topics.addonDeliveries, async ({ addonId, limit, offset }) => {
        return { integrationEvents: await store.logOf(addonId, { limit, offset }) };
      });
      configs.start();
      await queue.resume();
      retention = startRetention({
        what: "finished deliveries and the delivery log",
        days: settings.retentionDays,
        prune: async (before) => {
          const pruned = await store.prune(before);
          return pruned.deliveries + pruned.log;
        },
        clock,
        logger: log,
      });
      consumer = await engines.bus.consume(deliveryConsumerName, topics.domainEvents, (msg) => handle(msg.data), {
        // Failures here are the store or admin being unreachable: wait and try again, for a long time.
        maxDeliver: 100,
        backoffMs: (attempt) => Math.min(30_000, 250 * 2 ** Math.min(attempt, 7)),
        onDeadLetter: (msg, err) => log.error({ err, seq: msg.seq, subject: msg.subject }, "event could not be queued for delivery"),
      });
    },
    // Undoes start() last step first: no new events (those being handled are queued), then the
    // deliveries in flight finish and their leases go, and only then what they read while finishing.
    async stop() {
      await consumer?.stop();
      await retention?.stop();
      await queue.stop();
      await configs.stop();
      deliveryLog?.unsubscribe();
    },
  };
}
