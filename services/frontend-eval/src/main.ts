import { loadConfig } from "@vexil/config";
import { createLogger } from "@vexil/logger";
import { runServiceProcess } from "@vexil/runtime";
import { frontendEvalEnv } from "./config.js";
import { createFrontendEvalService } from "./service.js";

const config = loadConfig(frontendEvalEnv, process.env);
const logger = createLogger({ service: "frontend-eval", level: config.LOG_LEVEL });
await runServiceProcess({
  name: "frontend-eval",
  config,
  logger,
  store: false,
  create: (engines, metrics) => createFrontendEvalService({ engines, settings: config, logger, metrics }),
});
