import type { Logger } from "@vexil/logger";
import { currentFormat, migrateStore, StoreCorruptError, StoreFormatTooNewError, type StoreEngine, type StoreFormat } from "@vexil/store";
import { openStore } from "./engines.js";
import type { PlatformConfig } from "./platform-config.js";
import type { StartingServer } from "./starting-server.js";

/**
 * Opens a service's store, waiting while it is unreachable (see StartingServer), and brings it to
 * the service's current format before anything reads it (`migrateStore`: every step is logged and
 * recorded in the store). A store written by a newer release stops the process: one fatal line
 * naming both formats, then exit code 1. Waiting could not help, and serving could damage what the
 * newer release wrote; an orchestrator shows the crash loop, and the log says why. So does a
 * corrupt journal (a line that does not parse before its end): the line names where it is.
 */
export async function openStoreInFormat({
  starting,
  config,
  format,
  logger,
}: {
  starting: StartingServer;
  config: PlatformConfig;
  format: StoreFormat;
  logger: Logger;
}): Promise<StoreEngine> {
  const store = await starting.openWhenReachable(`the ${format.service} store`, () =>
    openStore(config, format.service, logger).catch((err: unknown) => {
      if (!(err instanceof StoreCorruptError)) throw err;
      logger.fatal({ store: format.service, file: err.file, line: err.line, offset: err.offset, prefix: err.prefix }, err.message);
      process.exit(1);
    }),
  );
  starting.startingWith(`bringing the ${format.service} store to format ${currentFormat(format)}`);
  try {
    await migrateStore(store, format, logger.child({ module: "store-format" }));
  } catch (err) {
    if (!(err instanceof StoreFormatTooNewError)) throw err;
    logger.fatal({ store: err.service, found: err.found, supported: err.supported }, err.message);
    await store.close().catch(() => undefined);
    process.exit(1);
  }
  return store;
}
