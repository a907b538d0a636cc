export * from "./logger.js";
export * from "./url-redaction.js";
export * from "./banner.js";
export * from "./failure-log.js";
