import { apiTokenAuthenticator, type Authenticator, type SecretBox, type SessionUser } from "@vexil/auth";
import type { Logger } from "@vexil/logger";
import { Registry } from "@vexil/metrics";
import { openSharedTokenSet, type Engines } from "@vexil/runtime";
import { AccessService } from "../access/access-service.js";
import { toGrant } from "../api-tokens/token-grants.js";
import type { LoginRateLimitSettings } from "../auth/login-rate-limit.js";
import { personalAccessTokenAuthenticator, sessionAuthenticator } from "../auth/user-authenticators.js";
import type { AdminConfig } from "../config.js";
import type { EventRetentionSettings } from "../events/event-retention.js";
import type { ActionRetentionSettings } from "../actions/action-retention.js";
import type { ClientInstanceRetentionSettings } from "../client-applications/instance-retention.js";
import { PlaygroundService } from "../playground/playground-service.js";
import { projectRoleRule } from "../roles/project-roles.js";
import { rootRoleRule } from "../roles/root-roles.js";
import type { SegmentLimitSettings } from "../segments/segment-limits.js";
import type { SignalLimitSettings } from "../signals/signal-limits.js";
import { snapshotSources } from "../snapshots/snapshot-sources.js";
import type { UsageMetricsSettings } from "../usage-metrics/usage-retention.js";
import { createChangeRequests } from "./change-requests.js";
import { createServiceExchange } from "./service-exchange.js";
import { createExportImport } from "./export-import.js";
import { createFlagModel } from "./flags.js";
import { createGovernanceSlice } from "./governance.js";
import { createSignalsSlice } from "./signals.js";
import { createStores } from "./stores.js";

export type AdminSettings = Pick<AdminConfig, "INIT_ADMIN_API_TOKENS" | "INIT_CLIENT_API_TOKENS" | "INIT_FRONTEND_API_TOKENS"> &
  Partial<SignalLimitSettings> &
  Partial<SegmentLimitSettings> &
  Partial<Pick<AdminConfig, "ADDONS_ALLOW_PRIVATE_URLS">> &
  Partial<
    Pick<AdminConfig, "INIT_ADMIN_USERNAME" | "INIT_ADMIN_PASSWORD" | "PUBLIC_URL" | "SECURE_COOKIES" | "PASSWORD_SIGN_IN_BREAK_GLASS">
  > &
  Partial<LoginRateLimitSettings> &
  Partial<EventRetentionSettings> &
  Partial<ActionRetentionSettings> &
  Partial<ClientInstanceRetentionSettings> &
  Partial<UsageMetricsSettings>;

/**
 * The admin service's composition root: each layer is built from the ones before it (stores, the
 * flag model, governance, change requests, signals, the exchange with the other services, export/import, playground); nothing refers to
 * a later one. `service.ts` mounts the routes and starts and stops the background work.
 */
export async function createAdminDeps({
  engines,
  settings,
  secrets,
  logger,
  clock = () => new Date(),
  metrics = new Registry(),
}: {
  engines: Engines;
  settings: AdminSettings;
  /** Seals the secrets admin stores (see `openSecretBox`). */
  secrets: SecretBox;
  logger: Logger;
  clock?: () => Date;
  /** The process's Prometheus registry; admin adds its gauges to it. */
  metrics?: Registry;
}) {
  const { events, unitOfWork, stores } = await createStores(engines.store, clock, secrets);
  // Admin owns the tokens: its own set reads them from its store, never from the cache.
  const sharedTokens = await openSharedTokenSet(engines.cache, engines.bus, {
    source: { loadAll: async () => (await stores.apiTokens.list()).map(toGrant) },
    logger: logger.child({ module: "tokens" }),
  });
  const access = new AccessService([projectRoleRule, rootRoleRule]);
  const flags = createFlagModel({ engine: engines.store, stores, events, unitOfWork, settings, clock, logger });
  const governance = await createGovernanceSlice({
    engines,
    stores,
    apiTokenStore: stores.apiTokens,
    environments: stores.environments,
    projects: stores.projects,
    unitOfWork,
    localTokens: sharedTokens.tokens,
    settings,
    secrets,
    clock,
    logger: logger.child({ module: "governance" }),
  });
  const changeRequests = createChangeRequests({
    stores,
    flags,
    userExists: (id) => governance.users.exists(id),
    groupExists: (id) => governance.groups.exists(id),
    unitOfWork,
    clock,
  });
  const signals = await createSignalsSlice({
    engines,
    unitOfWork,
    access,
    features: flags.flagEnvironments,
    assertProject: (project) => flags.projectService.get(project),
    accountTokens: governance.serviceAccountTokens,
    settings,
    clock,
    logger: logger.child({ module: "signals" }),
  });
  // Who a request is, tried in order: API tokens, a browser's session, then a person's or a service account's token.
  // A person acts with the roles their groups add, read at each request.
  const withGroups = (user: SessionUser) => governance.groups.accessOf(user);
  const authenticators: Authenticator[] = [
    apiTokenAuthenticator(sharedTokens.tokens),
    sessionAuthenticator(governance.sessions, withGroups),
    personalAccessTokenAuthenticator(governance.personalAccessTokens, async (id) => {
      const person = await governance.users.sessionUser(id);
      return person ? withGroups(person) : signals.serviceAccounts.tokenUser(id);
    }),
  ];
  const exchange = await createServiceExchange({ engines, stores, flags, events, unitOfWork, settings, metrics, clock, logger });
  const exportImport = createExportImport({
    engine: engines.store,
    stores,
    flags,
    changeRequests,
    unitOfWork,
    clock,
    logger: logger.child({ module: "import" }),
  });
  // The playground reads the flag model as the snapshot publisher does, so it evaluates what the SDKs receive.
  const playground = new PlaygroundService({
    sources: snapshotSources({
      features: flags.featureService,
      segments: flags.segmentService,
      environments: flags.environmentService,
      projects: flags.projectService,
      events,
    }),
    clock,
    random: Math.random,
  });
  return {
    engines,
    metrics,
    settings,
    secrets,
    logger,
    clock,
    events,
    unitOfWork,
    stores,
    sharedTokens,
    authenticators,
    access,
    flags,
    governance,
    changeRequests,
    signals,
    exchange,
    exportImport,
    playground,
  };
}
export type AdminDeps = Awaited<ReturnType<typeof createAdminDeps>>;
