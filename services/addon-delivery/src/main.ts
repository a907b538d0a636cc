import { loadConfig } from "@vexil/config";
import { createLogger } from "@vexil/logger";
import { runServiceProcess } from "@vexil/runtime";
import { addonDeliveryEnv, deliverySettingsFrom } from "./config.js";
import { createAddonDeliveryService } from "./service.js";
import { addonDeliveryStoreFormat } from "./store-format.js";

const config = loadConfig(addonDeliveryEnv, process.env);
const logger = createLogger({ service: "addon-delivery", level: config.LOG_LEVEL });
await runServiceProcess({
  name: "addon-delivery",
  config,
  logger,
  storeFormat: addonDeliveryStoreFormat,
  create: (engines, metrics) => createAddonDeliveryService({ engines, logger, settings: deliverySettingsFrom(config), metrics }),
});
