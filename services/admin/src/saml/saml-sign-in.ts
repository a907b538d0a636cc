import { SAML, ValidateInResponseTo, type CacheProvider, type Profile, type SamlConfig } from "@node-saml/node-saml";
import { SecretUnreadableError, type SecretBox } from "@vexil/auth";
import type { Cache } from "@vexil/cache";
import { cacheKeys, type SamlSettings } from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import type { SsoSession } from "../auth/session-store.js";
import { SsoRefusal, type SsoIdentity, type SsoSignIn } from "../sso/sso-sign-in.js";
import { valuesAt } from "../sso/values-at.js";
import type { SamlSettingsService } from "./saml-settings-service.js";

/** Where the identity provider sends people back, under the base URL (documented in docs/single-sign-on.md). */
export const samlPaths = {
  login: "/auth/saml/login",
  callback: "/auth/saml/callback",
  metadata: "/auth/saml/metadata",
  logoutCallback: "/auth/saml/logout/callback",
} as const;

/** How long a sign-in started here may take at the identity provider. */
export const samlRequestLifetimeMs = 10 * 60 * 1000;
/** How far the identity provider's clock may be from ours. */
const clockSkewMs = 60 * 1000;

/** How the request ids of one step are tied to the browser taking it. */
interface BrowserBinding {
  /** Told the id of a sign-in request as it is made, to bind it to the browser that asked. */
  sent?: (id: string) => void;
  /** The sign-in request the answering browser started (null: none); an answer to any other is refused. */
  startedHere?: string | null;
}

/** The answer replies to a sign-in another browser started (login CSRF), or this browser kept no binding. */
class AnswerForAnotherBrowser extends Error {}

/**
 * The ids of the requests sent to the identity provider, in the shared cache (Redis in a cluster),
 * so any admin instance accepts the answer to a request another one sent, and only once.
 */
function requestIds(cache: Cache, browser: BrowserBinding = {}): CacheProvider {
  const key = cacheKeys.samlRequest;
  return {
    async saveAsync(id, value) {
      if ((await cache.get(key(id))) !== null) return null;
      await cache.set(key(id), value, { ttlSeconds: samlRequestLifetimeMs / 1000 });
      browser.sent?.(id);
      return { value, createdAt: Date.now() };
    },
    // node-saml asks for the response's InResponseTo and for the assertion's: both must be this browser's request.
    async getAsync(id) {
      if (browser.startedHere !== undefined && id !== browser.startedHere) throw new AnswerForAnotherBrowser();
      return cache.get(key(id));
    },
    async removeAsync(id) {
      if (id === null) return null;
      return (await cache.del(key(id))) ? id : null;
    },
  };
}

/** What the binding cookie's sealed request id is for: it opens for nothing else. */
const bindingPurpose = "saml-request-binding";

/** The PEM blocks of a label in a text that may hold several (the SP's key and certificate). */
function pemBlocks(text: string | undefined, label: "PRIVATE KEY" | "CERTIFICATE"): string[] {
  const pattern = new RegExp(`-----BEGIN (?:RSA |EC )?${label}-----[\\s\\S]+?-----END (?:RSA |EC )?${label}-----`, "g");
  return text?.match(pattern) ?? [];
}

/** The email a SAML profile names: the usual attributes, else a NameID that is one. */
function emailOf(profile: Profile): string | undefined {
  for (const attribute of [
    "email",
    "mail",
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
    "urn:oid:0.9.2342.19200300.100.1.3",
  ]) {
    const value = profile[attribute];
    if (typeof value === "string" && value.includes("@")) return value;
  }
  return profile.nameID?.includes("@") ? profile.nameID : undefined;
}

function nameOf(profile: Profile): string | undefined {
  for (const attribute of ["displayName", "name", "cn", "http://schemas.microsoft.com/identity/claims/displayname"]) {
    const value = profile[attribute];
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return undefined;
}

/**
 * SAML 2.0 sign-in as the SAML settings describe it (read at each step, so a change applies at once
 * on every instance): SP-initiated, HTTP-Redirect to the identity provider, HTTP-POST back to the
 * assertion consumer. `@node-saml/node-saml` checks the signature against `certificate`, the
 * issuer (`entityId`), the audience (this server's entity id), the validity window with a minute of
 * skew, and that the answer replies to a request this server sent (once) from the browser posting
 * it (IdP-initiated answers are refused); the assertion id is also claimed once, so a replayed
 * answer is refused even on another instance.
 */
export class SamlSignIn {
  constructor(
    private readonly deps: {
      settings: SamlSettingsService;
      cache: Cache;
      sso: SsoSignIn;
      /** Seals the request id the browser keeps between the sign-in's start and its answer. */
      secrets: SecretBox;
    },
  ) {}

  /** The enabled settings, or a 404: sign-in through SAML is off. */
  async enabledSettings(): Promise<SamlSettings> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled) throw new NotFoundError("SAML sign-in is not enabled");
    return settings;
  }

  /**
   * The identity provider's sign-in URL for a person who wants to end up at `relayState`, and the
   * binding the browser keeps (a cookie) so only its answer is accepted (`consume`).
   */
  async loginUrl(base: string, relayState: string): Promise<{ url: string; binding: string }> {
    let requestId: string | undefined;
    const url = await this.saml(base, await this.enabledSettings(), { sent: (id) => (requestId = id) }).getAuthorizeUrlAsync(
      relayState,
      undefined,
      {},
    );
    if (!requestId) throw new Error("node-saml made a sign-in request without saving its id");
    return { url, binding: this.deps.secrets.seal(requestId, bindingPurpose) };
  }

  /** This server as a SAML service provider, for the identity provider's configuration. */
  async metadata(base: string): Promise<string> {
    const settings = await this.deps.settings.get();
    return this.saml(base, settings).generateServiceProviderMetadata(null, pemBlocks(settings.spCertificate, "CERTIFICATE"));
  }

  /**
   * Verifies the identity provider's answer and signs the person in; refusals are recorded and
   * thrown as SsoRefusal. `binding` is what the browser kept from `loginUrl`: the answer must reply
   * to that request, so an answer obtained in one browser does not sign in another (login CSRF).
   */
  async consume(base: string, body: Record<string, unknown>, binding: string | undefined) {
    const settings = await this.enabledSettings();
    const samlResponse = typeof body.SAMLResponse === "string" ? body.SAMLResponse : undefined;
    if (!samlResponse) throw await this.deps.sso.refuse("saml", "no-response", "The identity provider's answer was missing.");
    let profile: Profile | null;
    try {
      const startedHere = this.requestOf(binding);
      ({ profile } = await this.saml(base, settings, { startedHere }).validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (err) {
      if (err instanceof AnswerForAnotherBrowser)
        throw await this.deps.sso.refuse(
          "saml",
          "other-browser",
          "This sign-in answer replies to a sign-in started in another browser, or this browser did not keep the sign-in's cookie. Start the sign-in again from this browser.",
        );
      throw await this.deps.sso.refuse(
        "saml",
        "invalid-response",
        `The identity provider's answer was refused: ${(err as Error).message}.`,
      );
    }
    if (!profile) throw await this.deps.sso.refuse("saml", "no-assertion", "The identity provider's answer held no sign-in.");
    const assertionId = (profile.getAssertion?.() as { Assertion?: { $?: { ID?: string } } } | undefined)?.Assertion?.$?.ID;
    if (!assertionId || (await this.deps.cache.incrementWindow(cacheKeys.samlAssertion(assertionId), samlRequestLifetimeMs * 2)) > 1)
      throw await this.deps.sso.refuse("saml", "replayed", "This sign-in answer was already used.");
    const session: SsoSession = {
      provider: "saml",
      nameID: profile.nameID,
      nameIDFormat: profile.nameIDFormat,
      ...(profile.sessionIndex ? { sessionIndex: profile.sessionIndex } : {}),
    };
    const identity: SsoIdentity = {
      email: emailOf(profile),
      name: nameOf(profile),
      groups: settings.groupJsonPath ? valuesAt(profile, settings.groupJsonPath) : undefined,
      session,
    };
    return this.deps.sso.signIn("saml", identity, settings);
  }

  /** Where to send the browser to end the session at the identity provider too: only with `signOutUrl` and `spCertificate`. */
  async logoutUrl(base: string, session: Extract<SsoSession, { provider: "saml" }>): Promise<string | undefined> {
    const settings = await this.deps.settings.get();
    if (!settings.enabled || !settings.signOutUrl || pemBlocks(settings.spCertificate, "PRIVATE KEY").length === 0) return undefined;
    const profile: Profile = { issuer: settings.entityId ?? "", ...session };
    return this.saml(base, settings).getLogoutUrlAsync(profile, "/", {});
  }

  /** Checks the identity provider's answer to a sign-out (signature, issuer, our request). */
  async consumeLogoutResponse(base: string, query: Record<string, unknown>, originalQuery: string): Promise<void> {
    try {
      const { loggedOut } = await this.saml(base, await this.enabledSettings()).validateRedirectAsync(
        query as Record<string, string>,
        originalQuery,
      );
      if (!loggedOut) throw new Error("not a sign-out answer");
    } catch (err) {
      throw new SsoRefusal(`The identity provider's sign-out answer was refused: ${(err as Error).message}.`, "invalid-logout-response");
    }
  }

  /** The request id sealed in the browser's binding, or null when there is none it could open. */
  private requestOf(binding: string | undefined): string | null {
    if (!binding) return null;
    try {
      return this.deps.secrets.open(binding, bindingPurpose);
    } catch (err) {
      if (err instanceof SecretUnreadableError) return null;
      throw err;
    }
  }

  private saml(base: string, settings: SamlSettings, browser?: BrowserBinding): SAML {
    const privateKey = pemBlocks(settings.spCertificate, "PRIVATE KEY")[0];
    const config: SamlConfig = {
      issuer: base,
      callbackUrl: `${base}${samlPaths.callback}`,
      logoutCallbackUrl: `${base}${samlPaths.logoutCallback}`,
      entryPoint: settings.signOnUrl,
      logoutUrl: settings.signOutUrl ?? settings.signOnUrl,
      // The settings may be saved disabled without a certificate; nothing is verified against this placeholder then.
      idpCert: settings.certificate || "none",
      ...(settings.entityId ? { idpIssuer: settings.entityId } : {}),
      audience: base,
      wantAssertionsSigned: true,
      // Many providers sign the assertion only (Entra ID by default); the assertion's signature is what is required.
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: clockSkewMs,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: samlRequestLifetimeMs,
      cacheProvider: requestIds(this.deps.cache, browser),
      identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      disableRequestedAuthnContext: true,
      signatureAlgorithm: "sha256",
      ...(privateKey ? { privateKey } : {}),
    };
    return new SAML(config);
  }
}
