export { addonDeliveryEnv, deliverySettingsFrom, type AddonDeliveryConfig, type AddonDeliverySettings } from "./config.js";
export { createAddonDeliveryService, deliveryConsumerName, type AddonDeliveryDeps } from "./service.js";
export { addonDeliveryStoreFormat } from "./store-format.js";
