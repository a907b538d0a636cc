import type { SecretBox } from "@vexil/auth";
import type { OidcSettings, OidcSettingsView } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import type { StoreEngine } from "@vexil/store";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { SsoSettingsService } from "../sso/sso-settings-service.js";
import { createSsoSettingsStore, type SsoSettingsStore } from "../sso/sso-settings-store.js";

export type OidcSettingsStore = SsoSettingsStore<OidcSettings>;

/** The OIDC settings, the client secret sealed at rest. */
export function createOidcSettingsStore(engine: StoreEngine, secrets: SecretBox): Promise<OidcSettingsStore> {
  return createSsoSettingsStore<OidcSettings>(engine, secrets, {
    id: "oidc",
    collection: "oidc_settings",
    sealedFields: ["secret"],
    what: "OIDC settings",
  });
}

/** Plain HTTP is accepted only for a provider on this machine (a local setup, the tests); anything else must be HTTPS. */
export function insecureAllowed(url: URL): boolean {
  return url.protocol === "http:" && (url.hostname === "localhost" || /^127\./.test(url.hostname) || url.hostname === "[::1]");
}

/** The settings as the API answers them and events record them: never the client secret. */
export function withoutSecret({ secret: _secret, ...view }: OidcSettings): OidcSettingsView {
  return view;
}

/**
 * A `secret` left out keeps the stored one (the API never answers it back, so an edit could not
 * repeat it); enabling needs one, given now or before. The provider is reached over HTTPS only
 * (plain HTTP on this machine aside), as the client secret and the tokens travel there.
 */
function prepare(input: OidcSettings, before: OidcSettings | null): OidcSettings {
  if (input.discoverUrl) {
    const url = new URL(input.discoverUrl);
    if (url.protocol !== "https:" && !insecureAllowed(url))
      throw new ValidationError("discoverUrl must be an https URL (plain http only for localhost)");
  }
  const secret = input.secret?.trim() ? input.secret : before?.secret;
  const settings: OidcSettings = { ...input, ...(secret ? { secret } : {}) };
  if (!secret) delete settings.secret;
  if (settings.enabled && !settings.secret) throw new ValidationError("secret is required when OIDC is enabled");
  return settings;
}

export class OidcSettingsService extends SsoSettingsService<OidcSettings> {
  constructor(deps: { settings: OidcSettingsStore; unitOfWork: UnitOfWork }) {
    super({ ...deps, describe: (settings) => ({ id: "oidc", ...withoutSecret(settings), hasSecret: Boolean(settings.secret) }), prepare });
  }
}
