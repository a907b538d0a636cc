export * from "./address-safety.js";
