import express from "express";
import type { Consumer } from "@vexil/bus";
import type { Logger } from "@vexil/logger";
import type { Engines, VexilService } from "@vexil/runtime";

export interface AddonDeliveryDeps {
  engines: Engines;
  logger: Logger;
}

/** Consumes the domain-event stream and delivers each event to the addons subscribed to it. */
export async function createAddonDeliveryService({ engines, logger }: AddonDeliveryDeps): Promise<VexilService> {
  const log = logger.child({ module: "addon-delivery" });
  let consumer: Consumer | undefined;
  return {
    // No public paths: the process serves only health and readiness.
    router: express.Router(),
    readiness: [{ name: "event-consumer", check: async () => { if (!consumer) throw new Error("not consuming yet"); } }],
    async start() {
      consumer = await engines.bus.consume("addon-delivery", "events.>", async (msg) => {
        log.debug({ subject: msg.subject, seq: msg.seq }, "event received");
      });
    },
    async stop() {
      await consumer?.stop();
    },
  };
}
