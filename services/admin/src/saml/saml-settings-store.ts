import type { SecretBox } from "@vexil/auth";
import type { SamlSettings } from "@vexil/contracts";
import type { StoreEngine } from "@vexil/store";
import { createSsoSettingsStore, type SsoSettingsStore } from "../sso/sso-settings-store.js";

export type SamlSettingsStore = SsoSettingsStore<SamlSettings>;

/** The SAML settings, the certificates sealed at rest (the service provider's may carry its private key). */
export function createSamlSettingsStore(engine: StoreEngine, secrets: SecretBox): Promise<SamlSettingsStore> {
  return createSsoSettingsStore<SamlSettings>(engine, secrets, {
    id: "saml",
    collection: "saml_settings",
    sealedFields: ["certificate", "spCertificate"],
    what: "SAML settings",
  });
}
