export * from "./middleware.js";
export * from "./principal.js";
export * from "./token-secret.js";
export * from "./token-set.js";
export * from "./secret-box.js";
