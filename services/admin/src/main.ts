import { loadConfig } from "@vexil/config";
import { announce, createLogger } from "@vexil/logger";
import { openSecretBox, runServiceProcess } from "@vexil/runtime";
import { adminEnv } from "./config.js";
import { createAdminDeps } from "./compose/index.js";
import { createAdminService, type AdminService } from "./service.js";
import { initialAdminNotice } from "./users/initial-admin.js";
import { adminStoreFormat } from "./store-format/admin-store-format.js";

const config = loadConfig(adminEnv, process.env);
const logger = createLogger({ service: "admin", level: config.LOG_LEVEL });
const secrets = await openSecretBox(config, logger);
let admin: AdminService | undefined;
await runServiceProcess({
  name: "admin",
  config,
  logger,
  storeFormat: adminStoreFormat,
  create: async (engines, metrics) =>
    (admin = createAdminService(await createAdminDeps({ engines, settings: config, secrets, logger, metrics }))),
});
const notice = [
  ...(admin?.createdAdminSecret ? ["Created the first admin API token (shown once, keep it):", `  ${admin.createdAdminSecret}`] : []),
  ...initialAdminNotice(admin?.initialAdmin, config.PUBLIC_URL ?? "http://<gateway>"),
];
const [first, ...rest] = notice;
if (first) announce(logger, first, rest);
