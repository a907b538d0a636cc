export * from "./harness.js";
