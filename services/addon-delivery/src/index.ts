export { addonDeliveryEnv, type AddonDeliveryConfig } from "./config.js";
export { createAddonDeliveryService, type AddonDeliveryDeps } from "./service.js";
