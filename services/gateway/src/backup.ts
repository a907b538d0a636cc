import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { addonDeliveryStoreFormat } from "@vexil/addon-delivery";
import { adminStoreFormat } from "@vexil/admin";
import { signalIngestStoreFormat } from "@vexil/signal-ingest";
import {
  backupStore,
  currentFormat,
  createEmbeddedEngine,
  createMongoEngine,
  formatCollection,
  parseBackup,
  restoreStore,
  serializeBackup,
  type StoreBackup,
  type FormatMarker,
  type StoreEngine,
} from "@vexil/store";
import { storeLocation, type PlatformConfig } from "@vexil/runtime";

/** The services that keep a store (the gateway opens one for each, as does each cluster process). */
export const servicesWithStore = ["admin", "signal-ingest", "addon-delivery"] as const;

/** The newest store format this release reads, per service. */
const readableFormats: Record<string, number> = Object.fromEntries(
  [adminStoreFormat, signalIngestStoreFormat, addonDeliveryStoreFormat].map((format) => [format.service, currentFormat(format)]),
);

export interface InstallationBackup {
  format: "vexil-backup";
  version: 1;
  createdAt: Date;
  stores: Record<string, StoreBackup>;
}

/**
 * A running Vexil may be writing the embedded stores: they are read without being changed (see
 * `readOnly`). MongoDB serves the backup's reads like any other client's.
 */
async function openForBackup(config: PlatformConfig, service: string): Promise<StoreEngine | undefined> {
  const { database, dir } = storeLocation(config, service);
  if (config.MONGODB_URL) return createMongoEngine({ url: config.MONGODB_URL, database });
  return existsSync(dir) ? createEmbeddedEngine({ dir, readOnly: true }) : undefined;
}

/** The services whose stores are distinct: with MONGODB_DATABASE set they all share one database, copied once. */
function distinctStores(config: PlatformConfig): string[] {
  const seen = new Set<string>();
  return servicesWithStore.filter((service) => {
    const { database, dir } = storeLocation(config, service);
    const key = config.MONGODB_URL ? `mongodb:${database}` : `dir:${dir}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Writes every service's store into one file; resolves with how many documents each held. */
export async function backupInstallation(config: PlatformConfig, file: string, clock = () => new Date()): Promise<Record<string, number>> {
  const backup: InstallationBackup = { format: "vexil-backup", version: 1, createdAt: clock(), stores: {} };
  for (const service of distinctStores(config)) {
    const engine = await openForBackup(config, service);
    if (!engine) continue;
    try {
      backup.stores[service] = await backupStore(engine);
    } finally {
      await engine.close();
    }
  }
  if (!backup.stores.admin || Object.keys(backup.stores.admin.collections).length === 0) {
    const where = config.MONGODB_URL ? `MongoDB database ${storeLocation(config, "admin").database}` : storeLocation(config, "admin").dir;
    throw new Error(`Nothing to back up: no Vexil data in ${where} (set DATA_DIR or MONGODB_URL as the server has them)`);
  }
  await writeFile(file, serializeBackup(backup), { mode: 0o600 });
  return Object.fromEntries(
    Object.entries(backup.stores).map(([service, store]) => [service, Object.values(store.collections).flat().length]),
  );
}

/** Restores a backup into empty stores (a fresh DATA_DIR or fresh databases), with Vexil stopped. */
export async function restoreInstallation(config: PlatformConfig, file: string): Promise<Record<string, number>> {
  const backup = parseBackup<InstallationBackup>(await readFile(file, "utf8"));
  if (backup?.format !== "vexil-backup" || backup.version !== 1) throw new Error(`${file} is not a Vexil backup (version 1)`);
  // Everything is checked before anything is written.
  for (const [service, store] of Object.entries(backup.stores)) {
    if (!(servicesWithStore as readonly string[]).includes(service))
      throw new Error(`${file} holds a store for an unknown service ${service}`);
    assertReadableFormats(file, store);
  }
  const restored: Record<string, number> = {};
  for (const [service, store] of Object.entries(backup.stores)) {
    const { database, dir } = storeLocation(config, service);
    const engine = config.MONGODB_URL
      ? await createMongoEngine({ url: config.MONGODB_URL, database })
      : await createEmbeddedEngine({ dir });
    try {
      await restoreStore(engine, store);
    } catch (err) {
      throw new Error(`Restoring ${service} into ${config.MONGODB_URL ? `database ${database}` : dir} failed: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      await engine.close();
    }
    restored[service] = Object.values(store.collections).flat().length;
  }
  return restored;
}

/**
 * A backup carries each store's format marker (a collection like any other), so a restored store
 * starts in the format it was backed up in, and older ones are migrated at the next start. One
 * written by a newer release is refused here, before anything is written, rather than at the start.
 */
function assertReadableFormats(file: string, store: StoreBackup): void {
  for (const marker of (store.collections[formatCollection] ?? []) as FormatMarker[]) {
    const readable = readableFormats[marker._id];
    if (readable !== undefined && marker.format > readable) {
      throw new Error(
        `${file} holds the ${marker._id} store in format ${marker.format}, written by a newer release; this one reads formats up to ${readable}. ` +
          "Restore it with the release that made it (or a later one)",
      );
    }
  }
}
