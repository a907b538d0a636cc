import { systemActor, type Actor } from "../access/actor.js";
import type { SessionService } from "../auth/session-service.js";
import type { SsoSession } from "../auth/session-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { GroupService, SyncSource } from "../groups/group-service.js";
import { resolveRootRole, viewerRoleId } from "../roles/root-roles.js";
import type { UserService, UserView } from "../users/user-service.js";

export type SsoProvider = SyncSource;

/** What an identity provider vouched for, once its answer was verified. */
export interface SsoIdentity {
  email: string | undefined;
  name?: string;
  /** The groups the provider reported at the configured path; undefined when it reported none. */
  groups: string[] | undefined;
  /** How to end the session at the provider too, when that is on. */
  session?: SsoSession;
}

/** The sign-in rules the SAML and OIDC settings share. */
export interface SsoPolicy {
  autoCreate?: boolean;
  /** Comma-separated domains eligible for auto-created accounts; empty or absent: any domain. */
  emailDomains?: string;
  defaultRootRole?: "Viewer" | "Editor" | "Admin";
  /** Wins over `defaultRootRole`. */
  defaultRootRoleId?: number;
  enableGroupSyncing?: boolean;
}

/** A verified identity that may not sign in; the message is shown to the person. */
export class SsoRefusal extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

const providerNames: Record<SsoProvider, string> = { saml: "SAML", oidc: "OpenID Connect" };
const providerActor = (provider: SsoProvider): Actor => ({ name: `${provider}-sign-in`, userId: systemActor.userId });

export function domainAllowed(email: string, emailDomains: string | undefined): boolean {
  const domains = (emailDomains ?? "")
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return domains.length === 0 || domains.includes(domain);
}

/**
 * Opens a session for a person an identity provider vouched for: an existing user by email, or one
 * created when the settings auto-create for the email's domain, with the default root role; with
 * group syncing, the user's groups follow the provider's. The user, its groups and the sign-in
 * event are written together; a refusal is an event too. Events carry the email and outcome,
 * never the provider's answer or a secret.
 */
export class SsoSignIn {
  constructor(
    private readonly deps: {
      users: UserService;
      groups: GroupService;
      sessions: SessionService;
      unitOfWork: UnitOfWork;
    },
  ) {}

  async signIn(
    provider: SsoProvider,
    identity: SsoIdentity,
    policy: SsoPolicy,
  ): Promise<{ user: UserView; sessionId: string; expiresAt: Date }> {
    const claimed = identity.email?.trim().toLowerCase();
    if (!claimed || !claimed.includes("@"))
      throw await this.refuse(provider, "no-email", `The ${providerNames[provider]} answer named no email address to sign in with.`);
    const email: string = claimed;
    const user = await this.deps.unitOfWork.run(
      async (tx): Promise<{ user: UserView } | { refused: "unknown-user" | "domain-not-allowed" }> => {
        let user = await this.deps.users.findByLogin(email, tx);
        if (!user) {
          if (!policy.autoCreate) return { refused: "unknown-user" };
          if (!domainAllowed(email, policy.emailDomains)) return { refused: "domain-not-allowed" };
          const role = policy.defaultRootRoleId ?? policy.defaultRootRole ?? viewerRoleId;
          user = await this.deps.users.create(
            { email, ...(identity.name ? { name: identity.name } : {}), rootRole: resolveRootRole(role).id },
            providerActor(provider),
            tx,
          );
        }
        const actor: Actor = { name: email, userId: user.id, email };
        if (policy.enableGroupSyncing && identity.groups)
          await this.deps.groups.syncMemberships(user.id, identity.groups, provider, actor, tx);
        await this.deps.users.markSeen(user.id, tx);
        await tx.record({ type: "sso-sign-in", actor, data: { provider, userId: user.id, email } });
        return { user };
      },
    );
    if ("refused" in user) {
      throw await this.refuse(
        provider,
        user.refused,
        user.refused === "unknown-user"
          ? `There is no Vexil account for ${email}, and accounts are not created on sign-in. Ask an administrator to invite you.`
          : `Accounts for ${email.slice(email.lastIndexOf("@") + 1)} are not created on sign-in. Ask an administrator to invite you.`,
        email,
      );
    }
    const { sessionId, expiresAt } = await this.deps.sessions.start(user.user.id, identity.session);
    return { user: user.user, sessionId, expiresAt };
  }

  /** Records a refused sign-in (a bad answer from the provider, or a person who may not sign in) and returns the error to show. */
  async refuse(provider: SsoProvider, reason: string, message: string, email?: string): Promise<SsoRefusal> {
    await this.deps.unitOfWork.run((tx) =>
      tx.record({ type: "sso-sign-in-refused", actor: providerActor(provider), data: { provider, reason, ...(email ? { email } : {}) } }),
    );
    return new SsoRefusal(message, reason);
  }
}
