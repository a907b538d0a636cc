import express from "express";
import { startOutboxRelay, type OutboxRelay, type Subscription } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";
import { Counter, Registry } from "@vexil/metrics";
import type { Engines, VexilService } from "@vexil/runtime";
import { signalIngestLimitsEnv, type SignalIngestLimits } from "./config.js";
import { SharedEndpoints } from "./endpoints/shared-endpoints.js";
import { cacheRateLimiter } from "./signals/rate-limit.js";
import { SignalIntake } from "./signals/signal-intake.js";
import { signalRoutes } from "./signals/signal-routes.js";
import { createSignalStore } from "./signals/signal-store.js";

export interface SignalIngestDeps {
  engines: Engines;
  logger: Logger;
  /** Limits not given take the spec's values. */
  settings?: Partial<SignalIngestLimits>;
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
  const limits = signalIngestLimitsEnv.parse(settings);
  const signals = await createSignalStore(engines.store);
  const endpoints = await SharedEndpoints.open(engines.cache, engines.bus, logger.child({ module: "shared-endpoints" }));
  let relay: OutboxRelay | undefined;
  let lister: Subscription | undefined;
  const intake = new SignalIntake({
    endpoints,
    signals,
    rateLimiter: cacheRateLimiter(engines.cache, limits.SIGNAL_ENDPOINT_RATE_LIMIT_PER_SECOND),
    payloadLimitBytes: limits.SIGNAL_PAYLOAD_LIMIT_BYTES,
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
    },
    async stop() {
      lister?.unsubscribe();
      await relay?.stop();
      endpoints.stop();
    },
  };
}
