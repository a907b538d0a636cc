import type { SecretBox } from "@vexil/auth";
import type { SamlSettings } from "@vexil/contracts";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import { sealStoredSecrets } from "../secrets/stored-secrets.js";

/** The settings fields sealed at rest: the certificates (the service provider's may carry its private key). */
const sealedFields = ["certificate", "spCertificate"] as const;
type SealedField = (typeof sealedFields)[number];

/**
 * As stored: the certificates sealed in `sealed`, the rest in clear. Settings written before
 * secrets were sealed hold them in clear; they read the same, and are sealed at start.
 */
interface SamlSettingsDocument extends SamlSettings {
  _id: "saml";
  sealed?: Partial<Record<SealedField, string>>;
}

export interface SamlSettingsStore {
  get(session?: StoreSession): Promise<SamlSettings | null>;
  put(settings: SamlSettings, session?: StoreSession): Promise<void>;
}

const purpose = (field: SealedField) => `saml-${field}`;

export async function createSamlSettingsStore(engine: StoreEngine, secrets: SecretBox): Promise<SamlSettingsStore> {
  const settings: Collection<SamlSettingsDocument> = engine.collection("saml_settings");

  const toStored = (value: SamlSettings): SamlSettingsDocument => {
    const doc: SamlSettingsDocument = { _id: "saml", ...value, sealed: {} };
    for (const field of sealedFields) {
      const clear = doc[field];
      delete doc[field];
      if (clear !== undefined) doc.sealed![field] = secrets.seal(clear, purpose(field));
    }
    return doc;
  };
  const fromStored = ({ _id, sealed = {}, ...rest }: SamlSettingsDocument): SamlSettings => {
    const value: SamlSettings = { ...rest };
    for (const field of sealedFields) {
      const stored = sealed[field];
      if (stored !== undefined) value[field] = secrets.open(stored, purpose(field));
    }
    return value;
  };

  await sealStoredSecrets("SAML settings", async () => {
    const doc = await settings.findOne({ _id: "saml" });
    const stale = doc && (sealedFields.some((field) => doc[field] !== undefined) || Object.values(doc.sealed ?? {}).some(secrets.isStale));
    if (!stale) return 0;
    await settings.replaceOne({ _id: "saml" }, toStored(fromStored(doc)));
    return 1;
  });

  return {
    async get(session) {
      const doc = await settings.findOne({ _id: "saml" }, { session });
      return doc && fromStored(doc);
    },
    async put(value, session) {
      await settings.replaceOne({ _id: "saml" }, toStored(value), { upsert: true, session });
    },
  };
}
