import type { SamlSettings } from "@vexil/contracts";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { rootRoleById } from "../roles/root-roles.js";
import type { SamlSettingsStore } from "./saml-settings-store.js";

/** Event data names the settings, not the certificates in them. */
function describe(settings: SamlSettings) {
  const { certificate, spCertificate, ...rest } = settings;
  return { id: "saml", ...rest, hasCertificate: Boolean(certificate), hasSpCertificate: Boolean(spCertificate) };
}

/**
 * Stores and validates SAML settings (the schema requires entityId, signOnUrl and certificate when
 * enabled). The SAML sign-in flow itself is not implemented.
 */
export class SamlSettingsService {
  constructor(private readonly deps: { settings: SamlSettingsStore; unitOfWork: UnitOfWork }) {}

  async get(): Promise<SamlSettings> {
    return (await this.deps.settings.get()) ?? { enabled: false };
  }

  /** Replaces the settings; `defaultRootRoleId` wins over `defaultRootRole` and sets its name. */
  async update(input: SamlSettings, actor: Actor): Promise<SamlSettings> {
    const settings: SamlSettings =
      input.defaultRootRoleId !== undefined ? { ...input, defaultRootRole: rootRoleById(input.defaultRootRoleId).name } : input;
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.settings.get(tx.session);
      await this.deps.settings.put(settings, tx.session);
      await tx.record({
        type: before ? "setting-updated" : "setting-created",
        actor,
        data: describe(settings),
        preData: before ? describe(before) : null,
      });
    });
    return settings;
  }
}
