import type { SecretBox } from "@vexil/auth";
import type { Collection, StoreEngine, StoreSession } from "@vexil/store";
import { sealStoredSecrets } from "../secrets/stored-secrets.js";

export interface SsoSettingsStore<T> {
  get(session?: StoreSession): Promise<T | null>;
  put(settings: T, session?: StoreSession): Promise<void>;
}

/** The string fields of the settings that are secret (a certificate, a private key, a client secret). */
type SecretField<T> = { [K in keyof T]-?: T[K] extends string | undefined ? K : never }[keyof T] & string;

/**
 * One settings document of a single sign-on provider, its secret fields sealed in `sealed` and the
 * rest in clear. Settings written before secrets were sealed hold them in clear; they read the
 * same, and are sealed at start (and sealed again under a new key).
 */
export async function createSsoSettingsStore<T extends object>(
  engine: StoreEngine,
  secrets: SecretBox,
  { id, collection, sealedFields, what }: { id: string; collection: string; sealedFields: readonly SecretField<T>[]; what: string },
): Promise<SsoSettingsStore<T>> {
  type Stored = Record<string, unknown> & { _id: string; sealed?: Record<string, string> };
  const settings: Collection<Stored> = engine.collection(collection);
  const purpose = (field: string) => `${id}-${field}`;

  const toStored = (value: T): Stored => {
    const doc: Stored = { ...(value as Record<string, unknown>), _id: id, sealed: {} };
    for (const field of sealedFields) {
      const clear = doc[field];
      delete doc[field];
      if (typeof clear === "string") doc.sealed![field] = secrets.seal(clear, purpose(field));
    }
    return doc;
  };
  const fromStored = ({ _id, sealed = {}, ...rest }: Stored): T => {
    const value: Record<string, unknown> = { ...rest };
    for (const field of sealedFields) {
      const stored = sealed[field];
      if (stored !== undefined) value[field] = secrets.open(stored, purpose(field));
    }
    return value as T;
  };

  await sealStoredSecrets(what, async () => {
    const doc = await settings.findOne({ _id: id });
    const stale = doc && (sealedFields.some((field) => doc[field] !== undefined) || Object.values(doc.sealed ?? {}).some(secrets.isStale));
    if (!stale) return 0;
    await settings.replaceOne({ _id: id }, toStored(fromStored(doc)));
    return 1;
  });

  return {
    async get(session) {
      const doc = await settings.findOne({ _id: id }, { session });
      return doc && fromStored(doc);
    },
    async put(value, session) {
      await settings.replaceOne({ _id: id }, toStored(value), { upsert: true, session });
    },
  };
}
