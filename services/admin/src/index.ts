export { adminEnv, type AdminConfig } from "./config.js";
export { createAdminDeps, type AdminDeps, type AdminSettings } from "./compose/index.js";
export { createAdminService, type AdminService } from "./service.js";
export { initialAdminNotice, type InitialAdmin } from "./users/initial-admin.js";
export { adminStoreFormat } from "./store-format/admin-store-format.js";
