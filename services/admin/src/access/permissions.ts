// The names live beside the routes that declare them, so contracts and checks speak the same words.
export { permissions, type Permission } from "@vexil/contracts";
