import express from "express";
import { startOutboxRelay, type OutboxRelay, type Subscription } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";
import { Counter, Registry } from "@vexil/metrics";
import { startRetention, type Engines, type Retention, type VexilService } from "@vexil/runtime";
import { signalIngestSettingsEnv, type SignalIngestSettings } from "./config.js";
import { SharedEndpoints } from "./endpoints/shared-endpoints.js";
import { cacheRateLimiter } from "./signals/rate-limit.js";
import { SignalIntake } from "./signals/signal-intake.js";
import { signalRoutes } from "./signals/signal-routes.js";
import { createSignalStore } from "./signals/signal-store.js";

export interface SignalIngestDeps {
  engines: Engines;
  logger: Logger;
  /** Limits and retention; those not given take their defaults (the spec's values for limits). */
  settings?: Partial<SignalIngestSettings>;
  clock?: () => Date;
  /** The process's Prometheus registry. */
  metrics?: Registry;
}

/** Takes signals from external systems at `/api/signal-endpoint/:name`. */
export async function createSignalIngestService({
  engines,
  logger,
  settings = {},
  clock = () => new Date(),
  metrics = new Registry(),
}: SignalIngestDeps): Promise<VexilService> {
  const received = new Counter({
    name: "vexil_signals_received_total",
    help: "Signals posted to signal endpoints, per outcome (accepted, or the refusal's error name)",
    labelNames: ["outcome"],
    registers: [metrics],
  });
  const config = signalIngestSettingsEnv.parse(settings);
  const signals = await createSignalStore(engines.store);
  const endpoints = await SharedEndpoints.open(engines.cache, engines.bus, logger.child({ module: "shared-endpoints" }));
  let relay: OutboxRelay | undefined;
  let lister: Subscription | undefined;
  let retention: Retention | undefined;
  const intake = new SignalIntake({
    endpoints,
    signals,
    rateLimiter: cacheRateLimiter(engines.cache, config.SIGNAL_ENDPOINT_RATE_LIMIT_PER_SECOND, clock),
    payloadLimitBytes: config.SIGNAL_PAYLOAD_LIMIT_BYTES,
    clock,
    onStored: () => relay?.poke(),
    onOutcome: (outcome) => received.inc({ outcome }),
  });

  const router = express.Router();
  router.use(signalRoutes({ intake }));
  return {
    router,
    readiness: [
      {
        name: "signal-endpoints",
        check: async () => {
          if (!endpoints.ready) throw new Error("The signal endpoints are not loaded yet");
        },
      },
    ],
    async start() {
      relay = startOutboxRelay({ source: signals, bus: engines.bus, logger: logger.child({ module: "signal-relay" }) });
      // Admin's received-signals API asks here; one instance of the group answers each request.
      lister = engines.bus.reply(
        topics.signalsList,
        async ({ endpointId, limit, offset }) => ({ signals: await signals.list(endpointId, { limit, offset }) }),
        { queue: "signal-ingest" },
      );
      retention = startRetention({
        what: "received signals",
        days: config.SIGNALS_RETENTION_DAYS,
        prune: (before) => signals.prune(before),
        clock,
        logger: logger.child({ module: "signal-retention" }),
      });
    },
    async stop() {
      await retention?.stop();
      lister?.unsubscribe();
      await relay?.stop();
      endpoints.stop();
    },
  };
}
