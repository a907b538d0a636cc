export { signalIngestEnv, type SignalIngestConfig } from "./config.js";
export { createSignalIngestService, type SignalIngestDeps } from "./service.js";
