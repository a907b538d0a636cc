export * from "./logger.js";
export * from "./url-redaction.js";
