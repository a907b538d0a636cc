import express, { type Request, type Router } from "express";
import { authenticate, getPrincipal, recognise, requireTokenType } from "@vexil/auth";
import { startOutboxRelay } from "@vexil/bus";
import { logoutPath, samlCallbackPath, topics } from "@vexil/contracts";
import { startRetention, type VexilService } from "@vexil/runtime";
import { actionRetentionEnv } from "./actions/action-retention.js";
import { actionRoutes } from "./actions/action-routes.js";
import { addonRoutes } from "./addons/addon-routes.js";
import { serveAddonConfigs } from "./addons/addon-bus.js";
import { apiTokenRoutes } from "./api-tokens/api-token-routes.js";
import { seedApiTokens } from "./api-tokens/api-token-seeding.js";
import { authRoutes } from "./auth/auth-routes.js";
import { sameOriginWrites } from "./auth/same-origin-writes.js";
import { seedDefaults } from "./bootstrap/seed-defaults.js";
import { changeRequestRoutes } from "./change-requests/change-request-routes.js";
import { startChangeRequestScheduler } from "./change-requests/change-request-scheduler.js";
import { clientApplicationRoutes } from "./client-applications/client-application-routes.js";
import { consumeClientInstances } from "./client-applications/client-instances-consumer.js";
import { clientInstanceRetentionEnv } from "./client-applications/instance-retention.js";
import { consumeSeenFeatures } from "./client-metrics/seen-features-consumer.js";
import type { AdminDeps } from "./compose/index.js";
import { contextRoutes } from "./context/context-routes.js";
import { dependencyAndLifecycleRoutes } from "./feature-dependencies/dependency-and-lifecycle-routes.js";
import { environmentRoutes } from "./environments/environment-routes.js";
import { eventRetentionEnv } from "./events/event-retention.js";
import { eventRoutes } from "./events/event-routes.js";
import { EventStreamHub, eventStreamRoutes } from "./events/event-stream.js";
import { exportImportRoutes } from "./export-import/export-import-routes.js";
import { featureRoutes } from "./features/feature-routes.js";
import { feedbackRoutes } from "./feedback/feedback-routes.js";
import { flagLinkRoutes } from "./flag-links/flag-link-routes.js";
import { groupRoutes } from "./groups/group-routes.js";
import { signupTokenRoutes } from "./signup-tokens/signup-token-routes.js";
import { playgroundRoutes } from "./playground/playground-routes.js";
import { projectMemberRoutes, requestParticipation } from "./project-members/project-member-routes.js";
import { projectRoutes } from "./projects/project-routes.js";
import { samlSettingsRoutes } from "./saml/saml-settings-routes.js";
import { samlRoutes } from "./saml/saml-routes.js";
import { samlPaths } from "./saml/saml-sign-in.js";
import { ssoBaseUrl } from "./sso/base-url.js";
import { oidcRoutes, oidcSettingsRoutes } from "./oidc/oidc-routes.js";
import { oidcPaths } from "./oidc/oidc-sign-in.js";
import { passwordSettingsRoutes } from "./auth/password-sign-in.js";
import { segmentRoutes } from "./segments/segment-routes.js";
import { serviceAccountRoutes } from "./service-accounts/service-account-routes.js";
import { signalEndpointRoutes } from "./signals/signal-endpoint-routes.js";
import { strategyRoutes } from "./strategies/strategy-routes.js";
import { tagRoutes } from "./tags/tag-routes.js";
import { uiConfigRoutes } from "./ui-config/ui-config-routes.js";
import { serveUsageReports } from "./usage-metrics/usage-bus.js";
import { usageMetricsEnv } from "./usage-metrics/usage-retention.js";
import { usageRoutes } from "./usage-metrics/usage-routes.js";
import { userRoutes } from "./users/user-routes.js";
import type { InitialAdmin } from "./users/initial-admin.js";

export interface AdminService extends VexilService {
  /** Set on the start that created the first admin token, so it can be shown exactly once. */
  readonly createdAdminSecret: string | undefined;
  /** Known once started: the first admin user and whether it still has the default password. */
  readonly initialAdmin: InitialAdmin | undefined;
}

/**
 * Paths that take state-changing requests from other sites even with the session cookie (see
 * `sameOriginWrites`): sign-out, which GET does as well, and the SAML assertion consumer, which the
 * identity provider's page posts to and which opens a session only from a verified assertion.
 * Nothing that acts on the signed-in user's behalf belongs here.
 */
export const crossSiteWritePaths: readonly string[] = [logoutPath, samlCallbackPath];

/** Every admin route, in the order they are tried: the order is part of the behaviour. */
function adminRoutes(deps: AdminDeps, eventStream: EventStreamHub): Router[] {
  const { access, clock, events, flags, governance, changeRequests, signals, exchange, exportImport, playground } = deps;
  const signedIn = express.Router();
  const authenticated = [authenticate(deps.authenticators), requireTokenType(["admin"], { allowUsers: true })];
  signedIn.use("/api/admin", ...authenticated);
  signedIn.use("/feedback", ...authenticated);
  const participation = requestParticipation(changeRequests.projectMembers);
  return [
    // First: a change with the session cookie must come from this server's pages, whatever the path.
    express.Router().use(sameOriginWrites({ publicUrl: deps.settings.PUBLIC_URL, exemptPaths: crossSiteWritePaths })),
    // Sign-in, sign-out and invite signup need no credential; everything after does.
    authRoutes({
      sessions: governance.sessions,
      users: governance.users,
      signupTokens: governance.signupTokens,
      loginLimiter: governance.loginLimiter,
      secureCookies: deps.settings.SECURE_COOKIES ?? false,
      signOutAtProvider: async (req, sso) => {
        const base = ssoBaseUrl(req, deps.settings.PUBLIC_URL);
        return sso.provider === "saml" ? governance.samlSignIn.logoutUrl(base, sso) : governance.oidcSignIn.logoutUrl(base, sso);
      },
      signInOptions: async () => ({
        passwordSignIn: await governance.passwordSignIn.isOn(),
        providers: [
          ...((await governance.saml.get()).enabled ? [{ type: "saml" as const, name: "SAML 2.0", path: samlPaths.login }] : []),
          ...((await governance.oidc.get()).enabled ? [{ type: "oidc" as const, name: "OpenID Connect", path: oidcPaths.login }] : []),
        ],
      }),
      passwordSignIn: governance.passwordSignIn,
    }),
    samlRoutes({ saml: governance.samlSignIn, publicUrl: deps.settings.PUBLIC_URL, secureCookies: deps.settings.SECURE_COOKIES ?? false }),
    oidcRoutes({ oidc: governance.oidcSignIn, publicUrl: deps.settings.PUBLIC_URL, secureCookies: deps.settings.SECURE_COOKIES ?? false }),
    signedIn,
    // Before every other admin route: private projects are invisible to non-members.
    projectMemberRoutes({ members: changeRequests.projectMembers, access }),
    changeRequestRoutes({
      changeRequests: changeRequests.changeRequests,
      review: changeRequests.review,
      config: changeRequests.config,
      access,
      participation,
    }),
    feedbackRoutes({ feedback: governance.feedback, access, clock }),
    apiTokenRoutes({ apiTokens: governance.apiTokens, access }),
    userRoutes({ users: governance.users, personalAccessTokens: governance.personalAccessTokens, access }),
    groupRoutes({ groups: governance.groups, access }),
    signupTokenRoutes({ signupTokens: governance.signupTokens, access }),
    samlSettingsRoutes({ saml: governance.saml, access }),
    oidcSettingsRoutes({ oidc: governance.oidc, access }),
    passwordSettingsRoutes({ passwordSignIn: governance.passwordSignIn, access }),
    eventRoutes({ events, access, hiddenProjects: (req) => changeRequests.projectMembers.hiddenFrom(getPrincipal(req as Request)) }),
    eventStreamRoutes({ hub: eventStream, access, projects: flags.projectService, maySee: participation.maySee }),
    strategyRoutes({ strategies: flags.strategies, access }),
    segmentRoutes({ segments: flags.segmentService, access }),
    tagRoutes({ tags: flags.tagService, features: flags.featureService, access }),
    flagLinkRoutes({ links: flags.flagLinkService, access }),
    contextRoutes({ context: flags.contextService, access }),
    dependencyAndLifecycleRoutes({ dependencies: flags.dependencyService, lifecycle: flags.lifecycleService, access }),
    uiConfigRoutes({ limits: flags.segmentLimits, access }),
    environmentRoutes({ environments: flags.environmentService, projects: flags.projectService, access }),
    projectRoutes({ projects: flags.projectService, features: flags.featureService, reports: flags.projectReports, access, clock }),
    featureRoutes({ features: flags.featureService, flagEnvironments: flags.flagEnvironments, projects: flags.projectService, access }),
    signalEndpointRoutes({ signalEndpoints: signals.signalEndpoints, access }),
    serviceAccountRoutes({ serviceAccounts: signals.serviceAccounts, access }),
    actionRoutes({ actions: signals.actions, access }),
    addonRoutes({ addons: exchange.addons, access }),
    clientApplicationRoutes({ applications: exchange.clientApplications, access }),
    usageRoutes({ usage: exchange.usage, access }),
    exportImportRoutes({ exporter: exportImport.exporter, importer: exportImport.importer, access, privacy: participation }),
    playgroundRoutes({ playground, access, privacy: participation }),
  ];
}

export function createAdminService(deps: AdminDeps): AdminService {
  const { engines, logger, stores, unitOfWork, events, sharedTokens, flags, governance, changeRequests, signals, exchange } = deps;
  let createdAdminSecret: string | undefined;
  /** How to stop what start() set going, undone by stop() last first. */
  const running: Array<() => unknown> = [];
  const participation = requestParticipation(changeRequests.projectMembers);
  const eventStream = new EventStreamHub(
    {
      onCommitted: (listener) => unitOfWork.onCommitted(listener),
      since: (after, limit) => events.since(after, limit),
      latestId: () => events.latestId(),
    },
    participation.maySee,
    // A stream lives as long as the session or token it was opened with (signed out elsewhere, deleted, expired).
    { stillSignedIn: async (req) => (await recognise(deps.authenticators, req)) !== undefined },
  );

  return {
    router: express.Router().use(adminRoutes(deps, eventStream)),
    readiness: [sharedTokens.readiness],
    get createdAdminSecret() {
      return createdAdminSecret;
    },
    get initialAdmin() {
      return governance.initialAdmin;
    },
    async start() {
      const now = deps.clock();
      await seedDefaults(stores, now);
      await flags.contextService.seedBuiltIns();
      await flags.tagService.seedBuiltIns();
      await flags.environmentTypes.refresh();
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
      await governance.apiTokens.share();

      const { snapshotPublisher } = exchange;
      await snapshotPublisher.start();
      running.push(() => snapshotPublisher.stop());
      const republish = () =>
        void snapshotPublisher.republish().catch((err: unknown) => logger.warn({ err }, "rewriting the snapshots failed"));
      for (const subscription of [
        // A frontend-eval that found the cache without whole snapshots asks for them here.
        engines.bus.reply(topics.snapshotRepublish, async () => ({ environments: await snapshotPublisher.republish() }), {
          queue: "admin",
        }),
        // Snapshot announcements sent while NATS was away are lost; a Redis that restarted lost the snapshots.
        engines.bus.onReconnect(republish),
        engines.cache.onReconnect(republish),
        consumeSeenFeatures({
          bus: engines.bus,
          features: flags.featureService,
          lifecycle: flags.lifecycleService,
          logger: logger.child({ module: "seen-features" }),
        }),
        consumeClientInstances({
          bus: engines.bus,
          applications: exchange.clientApplications,
          logger: logger.child({ module: "client-instances" }),
        }),
        // Before the relay: the delivery service asks for the addons when the first events arrive.
        serveAddonConfigs(engines.bus, exchange.addons),
        serveUsageReports(engines.bus, exchange.usage),
      ])
        running.push(() => subscription.unsubscribe());
      const usageRetention = startRetention({
        what: "usage counts",
        days: usageMetricsEnv.parse(deps.settings).CLIENT_METRICS_RETENTION_HOURS / 24,
        prune: (before) => exchange.usageStore.prune(before),
        clock: deps.clock,
        logger: logger.child({ module: "usage-metrics" }),
      });
      running.push(() => usageRetention.stop());

      const relay = startOutboxRelay({ source: events, bus: engines.bus, logger: logger.child({ module: "outbox-relay" }) });
      running.push(
        () => relay.stop(),
        unitOfWork.onCommitted(() => relay.poke()),
      );
      const scheduler = startChangeRequestScheduler({
        store: stores.changeRequests,
        review: changeRequests.review,
        logger: logger.child({ module: "change-request-scheduler" }),
        clock: deps.clock,
      });
      running.push(
        () => scheduler.stop(),
        changeRequests.review.onScheduled(() => scheduler.poke()),
      );
      const eventRetention = startRetention({
        what: "the event log",
        days: eventRetentionEnv.parse(deps.settings).EVENT_LOG_RETENTION_DAYS,
        prune: (before) => events.prune(before),
        clock: deps.clock,
        logger: logger.child({ module: "event-retention" }),
      });
      running.push(() => eventRetention.stop());
      const actionRetention = startRetention({
        what: "finished action set runs",
        days: actionRetentionEnv.parse(deps.settings).ACTION_SET_EVENTS_RETENTION_DAYS,
        prune: (before) => signals.actionSetEvents.prune(before),
        clock: deps.clock,
        logger: logger.child({ module: "action-retention" }),
      });
      running.push(() => actionRetention.stop());
      const instanceRetention = startRetention({
        what: "client instances not seen since",
        days: clientInstanceRetentionEnv.parse(deps.settings).CLIENT_INSTANCES_RETENTION_DAYS,
        prune: (before) => stores.clientApplications.pruneInstances(before),
        clock: deps.clock,
        logger: logger.child({ module: "client-instance-retention" }),
      });
      running.push(() => instanceRetention.stop());
      await signals.start();
      running.push(() => signals.stop());
      await governance.start();
      running.push(() => governance.stop());
      // Last, so stop ends the open streams first.
      eventStream.start();
      running.push(() => eventStream.stop());
    },
    async stop() {
      for (let stop = running.pop(); stop; stop = running.pop()) await stop();
      // Opened when the deps were built, before any start.
      sharedTokens.stop();
    },
  };
}
