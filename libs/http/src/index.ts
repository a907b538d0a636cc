export * from "./app.js";
export * from "./body.js";
export * from "./error-handler.js";
export * from "./listen.js";
export * from "./request-id.js";
export * from "./validation.js";
export * from "./fast-path.js";
export * from "./event-stream.js";
