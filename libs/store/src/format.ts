import type { StoreEngine } from "./collection.js";
import { DuplicateKeyError } from "./errors.js";

/**
 * Where each store records the format it is written in: one document per service, keyed by its
 * name, so services sharing one MongoDB database (MONGODB_DATABASE) keep their markers apart.
 */
export const formatCollection = "store_format";

/** What a migration says while it runs; a pino logger fits. */
export interface FormatLog {
  info(details: Record<string, unknown>, message: string): void;
}

export interface FormatStep {
  /** What the step changes, for the log and the store's record of its migrations. */
  description: string;
  /**
   * Brings the store from the version before this step to the step's own. It may run again, after
   * a crash midway or in two processes starting at once (replicas on MongoDB), so it must be
   * idempotent: conditional updates and upserts, never a blind write of something read before.
   */
  run(engine: StoreEngine, log: FormatLog): Promise<void>;
}

/**
 * A service's store formats, as numbered steps: `steps[0]` brings format 0 (data written before
 * formats were recorded) to 1, `steps[1]` brings 1 to 2, and so on. The current format, what this
 * code writes, is `steps.length`. Steps are never changed once released: a new layout is a new step.
 */
export interface StoreFormat {
  /** The store's owner, which names its marker: "admin", "signal-ingest", "addon-delivery". */
  service: string;
  steps: readonly FormatStep[];
}

export interface MigrationRecord {
  from: number;
  to: number;
  description: string;
  finishedAt: Date;
  tookMs: number;
}

export interface FormatMarker {
  _id: string;
  format: number;
  /** When the marker was written: at the first start on an empty store, or before the first migration. */
  markedAt: Date;
  /** Every migration this store went through, oldest first. */
  migrations: MigrationRecord[];
}

/** The store was written by a newer release than the one starting: reading it could damage it. */
export class StoreFormatTooNewError extends Error {
  override readonly name = "StoreFormatTooNewError";
  constructor(
    readonly service: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The ${service} store is in format ${found}, newer than this release of Vexil reads (formats up to ${supported}): ` +
        `a newer release wrote it. Run that release (or a later one) again, or restore a backup taken before the upgrade into a fresh store.`,
    );
  }
}

export const currentFormat = (format: StoreFormat): number => format.steps.length;

/** The format a store records for `service`; undefined when it records none (an empty store, or one written before formats). */
export async function storeFormatOf(engine: StoreEngine, service: string): Promise<number | undefined> {
  return (await engine.collection<FormatMarker>(formatCollection).findOne({ _id: service }))?.format;
}

/**
 * Brings a store to the current format of `format` before a service reads it: an empty store is
 * marked with the current format; a store with data and no marker is format 0; each step from the
 * recorded format up runs in order, logged before and after, and recorded in the marker. A store
 * in a newer format is refused with StoreFormatTooNewError, and nothing in it is changed.
 * Resolves with the format found and the one the store is in now.
 */
export async function migrateStore(
  engine: StoreEngine,
  format: StoreFormat,
  log: FormatLog,
  clock: () => Date = () => new Date(),
): Promise<{ found: number; format: number }> {
  const { service } = format;
  const markers = engine.collection<FormatMarker>(formatCollection);
  const current = currentFormat(format);
  const mark = async (version: number): Promise<number> => {
    try {
      await markers.insertOne({ _id: service, format: version, markedAt: clock(), migrations: [] });
      return version;
    } catch (err) {
      // Another process of the service marked it at the same moment: take what it wrote.
      if (!(err instanceof DuplicateKeyError)) throw err;
      return (await storeFormatOf(engine, service)) ?? version;
    }
  };

  let version = await storeFormatOf(engine, service);
  if (version === undefined) {
    if (!(await holdsData(engine))) {
      const marked = await mark(current);
      if (marked === current) log.info({ store: service, format: current }, `new ${service} store, written in format ${current}`);
      version = marked;
    } else {
      version = await mark(0);
    }
  }
  const found = version;
  if (found > current) throw new StoreFormatTooNewError(service, found, current);
  if (found < current) {
    log.info(
      { store: service, from: found, to: current },
      `the ${service} store is in format ${found}${found === 0 ? " (written before formats were recorded)" : ""}: migrating it to format ${current}, one step at a time`,
    );
  }
  while (version < current) {
    const from: number = version;
    const step = format.steps[from]!;
    log.info(
      { store: service, from, to: from + 1, step: step.description },
      `migrating the ${service} store to format ${from + 1}: ${step.description}`,
    );
    const started = Date.now();
    await step.run(engine, log);
    const record: MigrationRecord = {
      from,
      to: from + 1,
      description: step.description,
      finishedAt: clock(),
      tookMs: Date.now() - started,
    };
    // Only from the format the step started at: of two processes migrating at once, one records it.
    const { matchedCount } = await markers.updateOne(
      { _id: service, format: from },
      { $set: { format: from + 1 }, $push: { migrations: record } },
    );
    version = matchedCount === 1 ? from + 1 : ((await storeFormatOf(engine, service)) ?? from + 1);
    log.info(
      { store: service, from, to: from + 1, tookMs: record.tookMs, recordedHere: matchedCount === 1 },
      `the ${service} store is in format ${from + 1}${matchedCount === 1 ? "" : " (another process recorded the step)"}`,
    );
  }
  return { found, format: version };
}

/** Whether the store holds anything besides format markers: a document, or a sequence once used. */
async function holdsData(engine: StoreEngine): Promise<boolean> {
  const collections = (await engine.collectionNames()).filter((name) => name !== formatCollection);
  return collections.length > 0 || Object.keys(await engine.sequences()).length > 0;
}
