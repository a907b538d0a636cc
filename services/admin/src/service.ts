import express from "express";
import { apiTokenAuthenticator, authenticate, requireTokenType } from "@vexil/auth";
import { startOutboxRelay, type OutboxRelay, type Subscription } from "@vexil/bus";
import { snapshotRepublish } from "@vexil/contracts";
import { startRetention, type Retention, type VexilService } from "@vexil/runtime";
import { addonRoutes } from "./addons/addon-routes.js";
import { serveAddonConfigs } from "./addons/addon-bus.js";
import { seedApiTokens } from "./api-tokens/api-token-seeding.js";
import { seedDefaults } from "./bootstrap/seed-defaults.js";
import { consumeSeenFeatures } from "./client-metrics/seen-features-consumer.js";
import { clientApplicationRoutes } from "./client-applications/client-application-routes.js";
import { consumeClientInstances } from "./client-applications/client-instances-consumer.js";
import type { AdminDeps } from "./compose.js";
import type { InitialAdmin } from "./users/initial-admin.js";
import { strategyRoutes } from "./strategies/strategy-routes.js";
import { contextRoutes } from "./context/context-routes.js";
import { featureLinkRoutes } from "./dependencies/feature-link-routes.js";
import { segmentRoutes } from "./segments/segment-routes.js";
import { changeRequestRoutes } from "./change-requests/change-request-routes.js";
import { startChangeRequestScheduler, type ChangeRequestScheduler } from "./change-requests/change-request-scheduler.js";
import { eventRetentionEnv } from "./events/event-retention.js";
import { tagRoutes } from "./tags/tag-routes.js";
import { uiConfigRoutes } from "./ui-config/ui-config-routes.js";
import { environmentRoutes } from "./environments/environment-routes.js";
import { featureRoutes } from "./features/feature-routes.js";
import { projectRoutes } from "./projects/project-routes.js";
import { exportImportRoutes } from "./export-import/export-import-routes.js";

export interface AdminService extends VexilService {
  /** Set on the start that created the first admin token, so it can be shown exactly once. */
  readonly createdAdminSecret: string | undefined;
  /** Known once started: the first admin user and whether it still has the default password. */
  readonly initialAdmin: InitialAdmin | undefined;
}

export function createAdminService(deps: AdminDeps): AdminService {
  const { engines, logger, stores, unitOfWork, events, sharedTokens, access } = deps;
  let relay: OutboxRelay | undefined;
  let seenFeatures: ReturnType<typeof consumeSeenFeatures> | undefined;
  let clientInstances: Subscription | undefined;
  let addonConfigs: Subscription | undefined;
  let resync: Array<{ unsubscribe(): void }> = [];
  let createdAdminSecret: string | undefined;
  let changeRequestScheduler: ChangeRequestScheduler | undefined;
  let stopPokingScheduler: (() => void) | undefined;
  let eventRetention: Retention | undefined;

  const router = express.Router();
  // Sign-in, sign-out and invite signup need no credential.
  router.use(deps.governance.publicRouter());
  const signedIn = [
    authenticate([apiTokenAuthenticator(sharedTokens.tokens), ...deps.governance.authenticators]),
    requireTokenType(["admin"], { allowUsers: true }),
  ];
  router.use("/api/admin", ...signedIn);
  router.use("/feedback", ...signedIn);
  // Before every admin route: private projects are invisible to non-members.
  router.use(deps.projectMembers.privacyMiddleware());
  router.use(
    changeRequestRoutes({
      changeRequests: deps.changeRequestService,
      review: deps.changeRequestReview,
      config: deps.changeRequestConfig,
      access,
      participation: deps.projectMembers,
    }),
  );
  router.use(deps.projectMembers.routes(access));
  router.use(deps.governance.feedbackRouter());
  router.use(deps.governance.adminRouter());
  router.use(strategyRoutes({ strategies: deps.strategies, access }));
  router.use(segmentRoutes({ segments: deps.segmentService, access }));
  router.use(tagRoutes({ tags: deps.tagService, features: deps.featureService, access }));
  router.use(contextRoutes({ context: deps.contextService, access }));
  router.use(featureLinkRoutes({ dependencies: deps.dependencyService, lifecycle: deps.lifecycleService, access }));
  router.use(uiConfigRoutes({ limits: deps.segmentLimits, access }));
  router.use(environmentRoutes({ environments: deps.environmentService, projects: deps.projectService, access }));
  router.use(
    projectRoutes({
      projects: deps.projectService,
      features: deps.featureService,
      reports: deps.projectReports,
      access,
      clock: deps.clock,
    }),
  );
  router.use(
    featureRoutes({ features: deps.featureService, featureStrategies: deps.featureStrategies, projects: deps.projectService, access }),
  );
  router.use(deps.signals.router());
  router.use(addonRoutes({ addons: deps.addons, access }));
  router.use(clientApplicationRoutes({ applications: deps.clientApplications, access }));
  router.use(deps.usageMetrics.router(access));
  router.use(exportImportRoutes({ exporter: deps.exporter, importer: deps.importer, access, privacy: deps.projectMembers }));

  return {
    router,
    readiness: [sharedTokens.readiness],
    get createdAdminSecret() {
      return createdAdminSecret;
    },
    get initialAdmin() {
      return deps.governance.initialAdmin;
    },
    async start() {
      const now = deps.clock();
      await seedDefaults(stores, now);
      await deps.contextService.seedBuiltIns();
      await deps.tagService.seedBuiltIns();
      await deps.environmentTypes.refresh();
      const seeded = await seedApiTokens(
        stores.apiTokens,
        {
          admin: deps.settings.INIT_ADMIN_API_TOKENS,
          client: deps.settings.INIT_CLIENT_API_TOKENS,
          frontend: deps.settings.INIT_FRONTEND_API_TOKENS,
        },
        now,
      );
      createdAdminSecret = seeded.createdAdminSecret;
      await deps.governance.apiTokens.share();
      await deps.snapshotPublisher.start();
      const republish = () =>
        void deps.snapshotPublisher.republish().catch((err: unknown) => logger.warn({ err }, "rewriting the snapshots failed"));
      resync = [
        // A frontend-eval that found the cache without whole snapshots asks for them here.
        engines.bus.reply(snapshotRepublish.subject, async () => ({ environments: await deps.snapshotPublisher.republish() }), {
          queue: "admin",
        }),
        // Snapshot announcements sent while NATS was away are lost; a Redis that restarted lost the snapshots.
        engines.bus.onReconnect(republish),
        engines.cache.onReconnect(republish),
      ];
      seenFeatures = consumeSeenFeatures({
        bus: engines.bus,
        features: deps.featureService,
        lifecycle: deps.lifecycleService,
        logger: logger.child({ module: "seen-features" }),
      });
      clientInstances = consumeClientInstances({
        bus: engines.bus,
        applications: deps.clientApplications,
        logger: logger.child({ module: "client-instances" }),
      });
      // Before the relay: the delivery service asks for the addons when the first events arrive.
      addonConfigs = serveAddonConfigs(engines.bus, deps.addons);
      deps.usageMetrics.start();
      relay = startOutboxRelay({ source: events, bus: engines.bus, logger: logger.child({ module: "outbox-relay" }) });
      unitOfWork.onCommitted(() => relay?.poke());
      changeRequestScheduler = startChangeRequestScheduler({
        store: deps.changeRequestStore,
        review: deps.changeRequestReview,
        logger: logger.child({ module: "change-request-scheduler" }),
        clock: deps.clock,
      });
      stopPokingScheduler = deps.changeRequestReview.onScheduled(() => changeRequestScheduler?.poke());
      eventRetention = startRetention({
        what: "the event log",
        days: eventRetentionEnv.parse(deps.settings).EVENT_LOG_RETENTION_DAYS,
        prune: (before) => events.prune(before),
        clock: deps.clock,
        logger: logger.child({ module: "event-retention" }),
      });
      await deps.signals.start();
      await deps.governance.start();
    },
    async stop() {
      stopPokingScheduler?.();
      changeRequestScheduler?.stop();
      eventRetention?.stop();
      await deps.governance.stop();
      await deps.signals.stop();
      await relay?.stop();
      addonConfigs?.unsubscribe();
      deps.usageMetrics.stop();
      for (const subscription of resync) subscription.unsubscribe();
      seenFeatures?.unsubscribe();
      clientInstances?.unsubscribe();
      await deps.snapshotPublisher.stop();
      sharedTokens.stop();
    },
  };
}
