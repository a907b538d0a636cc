import type { SamlSettings } from "@vexil/contracts";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { SsoSettingsService } from "../sso/sso-settings-service.js";
import type { SamlSettingsStore } from "./saml-settings-store.js";

/** Event data names the settings, not the certificates in them. */
function describe(settings: SamlSettings) {
  const { certificate, spCertificate, ...rest } = settings;
  return { id: "saml", ...rest, hasCertificate: Boolean(certificate), hasSpCertificate: Boolean(spCertificate) };
}

/** The SAML settings (the schema requires entityId, signOnUrl and certificate when enabled). */
export class SamlSettingsService extends SsoSettingsService<SamlSettings> {
  constructor(deps: { settings: SamlSettingsStore; unitOfWork: UnitOfWork }) {
    super({ ...deps, describe });
  }
}
