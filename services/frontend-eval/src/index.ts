export { frontendEvalEnv, type FrontendEvalConfig } from "./config.js";
export { createFrontendEvalService, type FrontendEvalDeps } from "./service.js";
