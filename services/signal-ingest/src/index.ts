export { signalIngestEnv, signalIngestSettingsEnv, type SignalIngestConfig, type SignalIngestSettings } from "./config.js";
export { createSignalIngestService, type SignalIngestDeps } from "./service.js";
export { signalIngestStoreFormat } from "./store-format.js";
