import type { SamlSettings } from "@vexil/contracts";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

interface SamlSettingsDocument extends SamlSettings {
  _id: "saml";
}

export interface SamlSettingsStore {
  get(session?: StoreSession): Promise<SamlSettings | null>;
  put(settings: SamlSettings, session?: StoreSession): Promise<void>;
}

export function createSamlSettingsStore(engine: StoreEngine): SamlSettingsStore {
  const settings: Collection<SamlSettingsDocument> = engine.collection("saml_settings");
  return {
    async get(session) {
      const doc = await settings.findOne({ _id: "saml" }, { session });
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return rest;
    },
    async put(value, session) {
      await settings.replaceOne({ _id: "saml" }, { _id: "saml", ...value }, { upsert: true, session });
    },
  };
}
