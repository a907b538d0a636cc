import express from "express";
import { apiTokenAuthenticator, authenticate, requireTokenType } from "@vexil/auth";
import { NotFoundError, NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { Registry } from "@vexil/metrics";
import { openSharedTokenSet, type EnginesWithoutStore, type VexilService } from "@vexil/runtime";
import { clientRoutes } from "./client/client-routes.js";
import { StreamingHub } from "./client/streaming-hub.js";
import type { FrontendEvalConfig } from "./config.js";
import { allowBrowserOrigins } from "./cross-origin.js";
import { sdkFastRoutes } from "./fast-routes.js";
import { frontendRoutes } from "./frontend/frontend-routes.js";
import { ClientInstances } from "./metrics/client-instances.js";
import { SeenFeatures } from "./metrics/seen-features.js";
import { UsageCounts } from "./metrics/usage-counts.js";
import { SnapshotFreshness } from "./snapshots/snapshot-freshness.js";
import { SnapshotHolder } from "./snapshots/snapshot-holder.js";
import { apiKeyHeader, ofrepErrors, ofrepRoutes } from "./ofrep/ofrep-routes.js";
import { registerFrontendEvalMetrics } from "./operations/frontend-eval-metrics.js";

export interface FrontendEvalDeps {
  /** No store: everything comes from the cache and the bus, so MongoDB being down never stops evaluation. */
  engines: EnginesWithoutStore;
  /** Origins allowed by default (every one, as in Unleash) when not given. */
  settings: Pick<FrontendEvalConfig, "FRONTEND_API_ENABLED"> &
    Partial<
      Pick<
        FrontendEvalConfig,
        | "SDK_STREAMS_LIMIT"
        | "SDK_STREAMS_PER_TOKEN_LIMIT"
        | "SDK_STREAMS_ADMIT_PER_SECOND"
        | "SDK_STREAM_MAX_UNSENT_BYTES"
        | "UNLEASH_FRONTEND_API_ORIGINS"
      >
    >;
  logger: Logger;
  /** The process's Prometheus registry. */
  metrics?: Registry;
}

/**
 * Serves the SDK surfaces (`/api/frontend`, `/api/client`) from memory: compiled snapshots
 * hydrated from the cache and swapped on announcements, tokens from the shared token set.
 */
export async function createFrontendEvalService({
  engines,
  settings,
  logger,
  metrics = new Registry(),
}: FrontendEvalDeps): Promise<VexilService> {
  const sharedTokens = await openSharedTokenSet(engines.cache, engines.bus, { logger: logger.child({ module: "tokens" }) });
  const authenticateToken = authenticate([apiTokenAuthenticator(sharedTokens.tokens)]);
  const snapshots = new SnapshotHolder({ cache: engines.cache, bus: engines.bus, logger: logger.child({ module: "snapshots" }) });
  const freshness = new SnapshotFreshness({
    bus: engines.bus,
    cache: engines.cache,
    holder: snapshots,
    logger: logger.child({ module: "snapshots" }),
  });
  const streams = new StreamingHub({
    maxStreams: settings.SDK_STREAMS_LIMIT,
    maxStreamsPerToken: settings.SDK_STREAMS_PER_TOKEN_LIMIT,
    admitPerSecond: settings.SDK_STREAMS_ADMIT_PER_SECOND,
    maxUnsentBytes: settings.SDK_STREAM_MAX_UNSENT_BYTES,
    logger: logger.child({ module: "streams" }),
  });
  // A revoked, narrowed or expired token loses its open streams at once, not at the next reconnect.
  const tokenChanges = sharedTokens.tokens.onChange(() => streams.revalidate((digest) => sharedTokens.tokens.grantFor(digest)));
  const operations = registerFrontendEvalMetrics(metrics, {
    streamingConnections: () => streams.size,
    stalledStreams: () => streams.stalled,
    revisions: () => snapshots.revisions(),
    ages: () => freshness.ages(),
    reasons: () => freshness.reasons(),
  });
  const seen = new SeenFeatures({ bus: engines.bus });
  const instances = new ClientInstances({ bus: engines.bus, onRegistered: operations.registered });
  const usage = new UsageCounts({
    bus: engines.bus,
    logger: logger.child({ module: "usage-counts" }),
    onReported: operations.usageReported,
  });
  snapshots.onSwap((snapshot, changes, notice) => {
    streams.publish(snapshot, changes);
    operations.applied(notice);
  });

  const router = express.Router();
  // Before anything else: a preflight carries no token, and an error must reach the page too.
  const crossOrigin = allowBrowserOrigins(settings.UNLEASH_FRONTEND_API_ORIGINS ?? ["*"]);
  router.use(["/api/frontend", "/ofrep"], crossOrigin);
  router.use("/api/frontend", (_req, _res, next) =>
    next(settings.FRONTEND_API_ENABLED ? undefined : new NotFoundError("The frontend API is disabled")),
  );
  router.use("/api/frontend", authenticateToken, requireTokenType(["frontend"]));
  router.use("/api/client", authenticateToken, requireTokenType(["client"]));
  router.use("/ofrep", apiKeyHeader, authenticateToken, requireTokenType(["frontend", "client"]));
  // Each request goes straight to the routes of its API: leaving an express router that has no
  // match costs a turn of the event loop.
  const frontend = frontendRoutes({ snapshots, seen, instances, usage });
  const client = clientRoutes({ snapshots, streams, seen, instances, usage });
  const ofrep = ofrepRoutes({ snapshots });
  router.use((req, res, next) =>
    (req.path.startsWith("/api/frontend") ? frontend : req.path.startsWith("/ofrep/") ? ofrep : client)(req, res, next),
  );

  return {
    router,
    errorHandlers: [ofrepErrors(logger.child({ module: "ofrep" }))],
    fastRoutes: sdkFastRoutes({ tokens: sharedTokens.tokens, snapshots, frontendApiEnabled: settings.FRONTEND_API_ENABLED, crossOrigin }),
    // Ready ("send me traffic") while it holds the token grants and a whole snapshot of every
    // environment it serves, whatever NATS, Redis or admin do; how stale that may be is in /health.
    readiness: [
      sharedTokens.readiness,
      {
        name: "snapshots",
        check: async () => {
          if (!snapshots.ready) throw new NotReady("No whole flag snapshot of every environment loaded yet");
        },
      },
    ],
    health: () => ({
      degraded: freshness.reasons().map(({ reason, since, message }) => ({
        name: `snapshots:${reason}`,
        reason: `${message} (since ${new Date(since).toISOString()})`,
      })),
      snapshots: snapshots.revisions().map(([environment, revision]) => ({
        environment,
        revision,
        ageSeconds: freshness.ages().find(([env]) => env === environment)?.[1] ?? 0,
      })),
    }),
    async start() {
      await snapshots.start();
      freshness.start();
    },
    async stop() {
      freshness.stop();
      tokenChanges.unsubscribe();
      streams.close();
      seen.stop();
      await usage.stop();
      instances.stop();
      snapshots.stop();
      sharedTokens.stop();
    },
  };
}
