import { loadConfig } from "@vexil/config";
import { createLogger } from "@vexil/logger";
import { runServiceProcess } from "@vexil/runtime";
import { signalIngestEnv } from "./config.js";
import { createSignalIngestService } from "./service.js";
import { signalIngestStoreFormat } from "./store-format.js";

const config = loadConfig(signalIngestEnv, process.env);
const logger = createLogger({ service: "signal-ingest", level: config.LOG_LEVEL });
await runServiceProcess({
  name: "signal-ingest",
  config,
  logger,
  storeFormat: signalIngestStoreFormat,
  create: (engines, metrics) => createSignalIngestService({ engines, logger, settings: config, metrics }),
});
