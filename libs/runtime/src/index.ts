export * from "./engines.js";
export * from "./platform-config.js";
export * from "./service-process.js";
export * from "./shared-token-set.js";
export * from "./shutdown.js";
export * from "./starting-server.js";
export * from "./retention.js";
export * from "./secrets-key.js";
