export * from "./harness.js";
export * from "./servers.js";
export * from "./vexil-process.js";
export * from "./reference-unleash.js";
export * from "./tokens.js";
