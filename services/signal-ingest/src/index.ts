export { signalIngestEnv, signalIngestLimitsEnv, type SignalIngestConfig, type SignalIngestLimits } from "./config.js";
export { createSignalIngestService, type SignalIngestDeps } from "./service.js";
export { signalIngestStoreFormat } from "./store-format.js";
