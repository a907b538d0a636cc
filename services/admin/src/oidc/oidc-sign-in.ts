import * as client from "openid-client";
import { z } from "zod";
import type { Cache } from "@vexil/cache";
import { cacheKeys, type OidcSettings } from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import type { SsoSession } from "../auth/session-store.js";
import type { SsoSignIn } from "../sso/sso-sign-in.js";
import { valuesAt } from "../sso/values-at.js";
import { insecureAllowed, type OidcSettingsService } from "./oidc-settings.js";

/** Where the provider sends people back, under the base URL (documented in docs/single-sign-on.md). */
export const oidcPaths = {
  login: "/auth/oidc/login",
  callback: "/auth/oidc/callback",
} as const;

/** How long a sign-in started here may take at the provider. */
export const oidcRequestLifetimeMs = 10 * 60 * 1000;
/** How long a discovered provider configuration (endpoints, keys) is reused before it is read again. */
const discoveryLifetimeMs = 5 * 60 * 1000;

/** What a started sign-in keeps until the provider answers: in the shared cache, so any admin instance finishes it. */
const pendingSignIn = z.object({ codeVerifier: z.string(), nonce: z.string(), redirect: z.string() });

/** The person-facing reason in an error from openid-client: the provider's own words when it answered with an error. */
function describeError(err: unknown): string {
  const { error, error_description: description } = (err ?? {}) as { error?: unknown; error_description?: unknown };
  if (typeof description === "string" && description) return description;
  if (typeof error === "string" && error) return error;
  const message = (err as Error)?.message ?? String(err);
  const cause = (err as { cause?: { message?: unknown } })?.cause?.message;
  return typeof cause === "string" && cause ? `${message} (${cause})` : message;
}

/**
 * OpenID Connect sign-in as the OIDC settings describe it (read at each step, so a change applies at
 * once on every instance): the authorization code flow with PKCE, a state and a nonce, through
 * `openid-client`, which checks the ID token's signature against the provider's keys (JWKS), its
 * issuer, audience (the client id), expiry and nonce. The state is claimed once from the shared cache and
 * must match the one the browser that started the sign-in holds, so an answer is used once, by
 * that browser only.
 */
export class OidcSignIn {
  private discovered: { key: string; at: number; config: Promise<client.Configuration> } | undefined;

  constructor(
    private readonly deps: {
      settings: OidcSettingsService;
      cache: Cache;
      sso: SsoSignIn;
      clock?: () => number;
    },
  ) {}

  /** The enabled settings, or a 404: sign-in through OIDC is off. */
  async enabledSettings(): Promise<OidcSettings> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled) throw new NotFoundError("OIDC sign-in is not enabled");
    return settings;
  }

  /** The provider's sign-in URL for a person who wants to end up at `redirect`, and the state the browser keeps. */
  async start(base: string, redirect: string): Promise<{ url: string; state: string }> {
    const settings = await this.enabledSettings();
    const config = await this.configuration(settings);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.deps.cache.setJson(cacheKeys.oidcSignIn(state), { codeVerifier, nonce, redirect } satisfies z.infer<typeof pendingSignIn>, {
      ttlSeconds: oidcRequestLifetimeMs / 1000,
    });
    const scopes = ["openid", "email", "profile", ...(settings.addGroupsScope ? ["groups"] : [])];
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: `${base}${oidcPaths.callback}`,
      scope: scopes.join(" "),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
      ...(settings.acrValues?.trim() ? { acr_values: settings.acrValues.trim() } : {}),
    });
    return { url: url.href, state };
  }

  /**
   * Finishes a sign-in from the provider's answer (`query`, as it came back), for the browser holding
   * `browserState`; refusals are recorded and thrown as SsoRefusal. Answers where to go next too.
   */
  async finish(base: string, query: URLSearchParams, browserState: string | undefined) {
    const settings = await this.enabledSettings();
    const refuse = (reason: string, message: string, email?: string) => this.deps.sso.refuse("oidc", reason, message, email);
    const state = query.get("state") ?? "";
    const pending = state ? pendingSignIn.safeParse(await this.deps.cache.getJson(cacheKeys.oidcSignIn(state))) : undefined;
    // Claimed once: a second use of the same answer (a replayed code) finds nothing here.
    if (!pending?.success || !(await this.deps.cache.del(cacheKeys.oidcSignIn(state))))
      throw await refuse("unknown-state", "This sign-in answer was already used, has expired, or was not started here. Sign in again.");
    if (state !== browserState)
      throw await refuse("state-mismatch", "This sign-in answer belongs to a sign-in started in another browser. Sign in again.");
    const { codeVerifier, nonce, redirect } = pending.data;

    const config = await this.configuration(settings);
    const callbackUrl = new URL(`${base}${oidcPaths.callback}?${query.toString()}`);
    let claims: Record<string, unknown>;
    let idToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: codeVerifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      const idTokenClaims = tokens.claims()!;
      idToken = tokens.id_token!;
      // Many providers put email, name and groups only in the userinfo answer; the ID token's claims win.
      const userInfo = config.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(config, tokens.access_token, idTokenClaims.sub)
        : {};
      claims = { ...userInfo, ...idTokenClaims };
    } catch (err) {
      throw await refuse("invalid-response", `The identity provider's answer was refused: ${describeError(err)}.`);
    }
    const email = typeof claims.email === "string" ? claims.email : undefined;
    if (claims.email_verified === false)
      throw await refuse(
        "email-not-verified",
        "The identity provider has not verified your email address, so it cannot be used to sign in.",
        email?.toLowerCase(),
      );
    const session: SsoSession | undefined = settings.enableSingleSignOut ? { provider: "oidc", idToken } : undefined;
    const signedIn = await this.deps.sso.signIn(
      "oidc",
      {
        email,
        name: typeof claims.name === "string" && claims.name.trim() ? claims.name.trim() : undefined,
        groups: settings.groupJsonPath ? valuesAt(claims, settings.groupJsonPath) : undefined,
        session,
      },
      settings,
    );
    return { ...signedIn, redirect };
  }

  /** Where to send the browser to end the session at the provider too: with `enableSingleSignOut` and a provider that offers it. */
  async logoutUrl(base: string, session: Extract<SsoSession, { provider: "oidc" }>): Promise<string | undefined> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled || !settings.enableSingleSignOut) return undefined;
    const config = await this.configuration(settings).catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, { id_token_hint: session.idToken, post_logout_redirect_uri: `${base}/login` }).href;
  }

  /** The provider's configuration, discovered again when the settings change or it is a few minutes old. */
  private configuration(settings: OidcSettings): Promise<client.Configuration> {
    const now = (this.deps.clock ?? Date.now)();
    const key = JSON.stringify([settings.discoverUrl, settings.clientId, settings.secret, settings.idTokenSigningAlgorithm]);
    if (this.discovered?.key === key && now - this.discovered.at < discoveryLifetimeMs) return this.discovered.config;
    const server = new URL(settings.discoverUrl!);
    const config = client
      .discovery(
        server,
        settings.clientId!,
        { client_secret: settings.secret, id_token_signed_response_alg: settings.idTokenSigningAlgorithm ?? "RS256" },
        undefined,
        {
          timeout: 10,
          // The ID token's signature is checked against the provider's keys too, not only trusted for
          // coming over TLS from the token endpoint (which a local plain-HTTP provider does not have).
          execute: [client.enableNonRepudiationChecks, ...(insecureAllowed(server) ? [client.allowInsecureRequests] : [])],
        },
      )
      .catch(async (err: unknown) => {
        this.discovered = undefined;
        throw await this.deps.sso.refuse(
          "oidc",
          "provider-unreachable",
          `The identity provider's configuration could not be read: ${describeError(err)}.`,
        );
      });
    this.discovered = { key, at: now, config };
    return config;
  }
}
