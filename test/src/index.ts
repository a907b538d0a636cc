export * from "./harness.js";
export * from "./servers.js";
export * from "./vexil-process.js";
