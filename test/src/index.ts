export * from "./harness.js";
export * from "./servers.js";
