import type { SecretBox } from "@vexil/auth";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import { sealStoredSecrets } from "../secrets/stored-secrets.js";
import { sensitiveParameter } from "./addon-validation.js";

/** An addon configuration as the service sees it: parameters in clear, masked only on the way out. */
export interface AddonDocument {
  _id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  parameters: Record<string, string>;
  events: string[];
  projects: string[];
  environments: string[];
  createdAt: Date;
}

/**
 * As stored: the provider's sensitive parameters (URLs with credentials, API keys, headers) sealed
 * in `sealedParameters`, the others in clear. A document written before secrets were sealed has
 * them all in `parameters`; it reads the same, and is sealed at start.
 */
interface StoredAddon extends AddonDocument {
  sealedParameters?: Record<string, string>;
}

export interface AddonStore {
  nextId(): Promise<number>;
  list(): Promise<AddonDocument[]>;
  get(id: number, session?: StoreSession): Promise<AddonDocument | null>;
  insert(doc: AddonDocument, session: StoreSession): Promise<void>;
  replace(doc: AddonDocument, session: StoreSession): Promise<void>;
  delete(id: number, session: StoreSession): Promise<boolean>;
}

const purpose = "addon-parameter";

export async function createAddonStore(engine: StoreEngine, secrets: SecretBox): Promise<AddonStore> {
  const addons: Collection<StoredAddon> = engine.collection("addons");

  const toStored = (doc: AddonDocument): StoredAddon => {
    const isSensitive = sensitiveParameter(doc.provider);
    const parameters: Record<string, string> = {};
    const sealedParameters: Record<string, string> = {};
    for (const [name, value] of Object.entries(doc.parameters)) {
      if (isSensitive(name)) sealedParameters[name] = secrets.seal(value, purpose);
      else parameters[name] = value;
    }
    return { ...doc, parameters, sealedParameters };
  };
  const fromStored = ({ sealedParameters = {}, ...doc }: StoredAddon): AddonDocument => {
    const opened = Object.entries(sealedParameters).map(([name, sealed]) => [name, secrets.open(sealed, purpose)]);
    return { ...doc, parameters: { ...doc.parameters, ...Object.fromEntries(opened) } };
  };
  const needsSealing = (doc: StoredAddon) =>
    Object.keys(doc.parameters).some(sensitiveParameter(doc.provider)) ||
    Object.values(doc.sealedParameters ?? {}).some((sealed) => secrets.isStale(sealed));

  await sealStoredSecrets("addon parameters", async () => {
    const stale = (await addons.find({})).filter(needsSealing);
    for (const doc of stale) {
      // Only the version read: another process's change meanwhile was sealed by that process.
      const unchanged = { parameters: doc.parameters, sealedParameters: doc.sealedParameters ?? { $exists: false } };
      await addons.replaceOne({ _id: doc._id, ...unchanged }, toStored(fromStored(doc)));
    }
    return stale.length;
  });

  return {
    nextId: () => engine.nextSequence("addons"),
    list: async () => (await addons.find({}, { sort: { _id: 1 } })).map(fromStored),
    get: async (id, session) => {
      const doc = await addons.findOne({ _id: id }, { session });
      return doc && fromStored(doc);
    },
    async insert(doc, session) {
      await addons.insertOne(toStored(doc), { session });
    },
    async replace(doc, session) {
      await addons.replaceOne({ _id: doc._id }, toStored(doc), { session });
    },
    async delete(id, session) {
      return (await addons.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
  };
}
