import type { SecretBox, TokenSet } from "@vexil/auth";
import type { Logger } from "@vexil/logger";
import type { Engines } from "@vexil/runtime";
import { ApiTokenService } from "../api-tokens/api-token-service.js";
import type { ApiTokenStore } from "../api-tokens/api-token-store.js";
import { loginRateLimiter, type LoginRateLimitSettings } from "../auth/login-rate-limit.js";
import { SessionService } from "../auth/session-service.js";
import { createSessionStore } from "../auth/session-store.js";
import type { EnvironmentStore } from "../environments/environment-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { createFeedbackStore } from "../feedback/feedback-store.js";
import { GroupService } from "../groups/group-service.js";
import type { AdminStores } from "./stores.js";
import { SignupTokenService } from "../signup-tokens/signup-token-service.js";
import { createSignupTokenStore } from "../signup-tokens/signup-token-store.js";
import type { ProjectStore } from "../projects/project-store.js";
import { SamlSettingsService } from "../saml/saml-settings-service.js";
import { SamlSignIn } from "../saml/saml-sign-in.js";
import { SsoSignIn } from "../sso/sso-sign-in.js";
import { createOidcSettingsStore, OidcSettingsService } from "../oidc/oidc-settings.js";
import { OidcSignIn } from "../oidc/oidc-sign-in.js";
import { PasswordSignIn } from "../auth/password-sign-in.js";
import { createSamlSettingsStore } from "../saml/saml-settings-store.js";
import { PersonalAccessTokenService } from "../users/personal-access-token-service.js";
import { createPersonalAccessTokenStore } from "../users/personal-access-token-store.js";
import { UserService } from "../users/user-service.js";
import { createUserStore } from "../users/user-store.js";
import { defaultAdminUsername, ensureInitialAdmin, type InitialAdmin } from "../users/initial-admin.js";

export interface GovernanceSettings extends Partial<LoginRateLimitSettings> {
  /** The first admin user, created on the first start only (Unleash's defaults). */
  INIT_ADMIN_USERNAME?: string;
  INIT_ADMIN_PASSWORD?: string;
  /** Prefix of invite-link URLs, e.g. https://flags.example.com. */
  PUBLIC_URL?: string;
  /** Mark the session cookie Secure (serve over HTTPS). */
  SECURE_COOKIES?: boolean;
  /** Lets the built-in admin sign in with a password while password sign-in is off. */
  PASSWORD_SIGN_IN_BREAK_GLASS?: boolean;
}

const sessionPruneEveryMs = 60 * 60 * 1000;

/**
 * Who may do what: API tokens, users and their sessions and
 * personal access tokens, signup tokens (the invite links people sign up with), single sign-on (SAML,
 * OIDC), password sign-in's switch and feedback.
 */
export async function createGovernanceSlice({
  engines,
  stores,
  apiTokenStore,
  environments,
  projects,
  unitOfWork,
  localTokens,
  settings,
  secrets,
  clock,
  logger,
}: {
  engines: Engines;
  stores: Pick<AdminStores, "groups" | "projectMembers">;
  apiTokenStore: ApiTokenStore;
  environments: EnvironmentStore;
  projects: ProjectStore;
  unitOfWork: UnitOfWork;
  localTokens: TokenSet;
  settings: GovernanceSettings;
  /** Seals the secrets the slice stores (SAML certificates, the OIDC client secret). */
  secrets: SecretBox;
  clock: () => Date;
  logger: Logger;
}) {
  const { store, bus, cache } = engines;
  const sessionStore = await createSessionStore(store);
  const patStore = await createPersonalAccessTokenStore(store);
  const users = new UserService({
    users: await createUserStore(store),
    sessions: sessionStore,
    personalAccessTokens: patStore,
    groups: stores.groups,
    unitOfWork,
    clock,
  });
  const groups = new GroupService({ groups: stores.groups, users, projectRoles: stores.projectMembers, unitOfWork, clock });
  const sessions = new SessionService({ sessions: sessionStore, users, clock });
  const personalAccessTokens = new PersonalAccessTokenService({ tokens: patStore, unitOfWork, clock });
  // Service accounts' tokens are kept and checked as people's are, with Unleash's own event names.
  const serviceAccountTokens = new PersonalAccessTokenService({
    tokens: patStore,
    unitOfWork,
    clock,
    events: { created: "service-account-token-created", deleted: "service-account-token-deleted" },
  });
  const apiTokens = new ApiTokenService({
    tokens: apiTokenStore,
    environments,
    projects,
    unitOfWork,
    cache,
    bus,
    localTokens,
    clock,
    logger: logger.child({ module: "api-tokens" }),
  });
  const signupTokens = new SignupTokenService({
    tokens: createSignupTokenStore(store),
    users,
    unitOfWork,
    clock,
    publicUrl: settings.PUBLIC_URL,
  });
  const saml = new SamlSettingsService({ settings: await createSamlSettingsStore(store, secrets), unitOfWork });
  const sso = new SsoSignIn({ users, groups, sessions, unitOfWork });
  const samlSignIn = new SamlSignIn({ settings: saml, cache, sso, secrets });
  const oidc = new OidcSettingsService({ settings: await createOidcSettingsStore(store, secrets), unitOfWork });
  const oidcSignIn = new OidcSignIn({ settings: oidc, cache, sso });
  const passwordSignIn = new PasswordSignIn({
    engine: store,
    unitOfWork,
    ssoEnabled: async () => Boolean((await saml.get()).enabled || (await oidc.get()).enabled),
    breakGlass: settings.PASSWORD_SIGN_IN_BREAK_GLASS ?? false,
    builtInAdmin: settings.INIT_ADMIN_USERNAME ?? defaultAdminUsername,
    logger: logger.child({ module: "password-sign-in" }),
  });
  const feedback = createFeedbackStore(store);
  const loginLimiter = loginRateLimiter(cache, settings, clock);

  let subscriptions: Array<{ unsubscribe(): void }> = [];
  let initialAdmin: InitialAdmin | undefined;
  let pruning: ReturnType<typeof setInterval> | undefined;

  return {
    users,
    groups,
    sessions,
    personalAccessTokens,
    serviceAccountTokens,
    apiTokens,
    signupTokens,
    saml,
    samlSignIn,
    oidc,
    oidcSignIn,
    passwordSignIn,
    feedback,
    loginLimiter,
    /** Known once started: whether the first admin was created and still has the default password. */
    get initialAdmin() {
      return initialAdmin;
    },
    async start() {
      initialAdmin = await ensureInitialAdmin(users, settings, logger);
      const reshare = () => void apiTokens.share().catch((err: unknown) => logger.warn({ err }, "sharing the token grants failed"));
      subscriptions = [
        apiTokens.recordUseReports(),
        apiTokens.serveGrants(),
        // Announcements sent while NATS was away are lost, and a Redis that restarted lost the grants.
        bus.onReconnect(reshare),
        cache.onReconnect(reshare),
      ];
      pruning = setInterval(() => {
        sessions.pruneExpired().catch((err: unknown) => logger.warn({ err }, "pruning expired sessions failed"));
      }, sessionPruneEveryMs);
      pruning.unref();
    },
    async stop() {
      for (const subscription of subscriptions) subscription.unsubscribe();
      if (pruning) clearInterval(pruning);
    },
  };
}
