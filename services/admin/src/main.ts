import { loadConfig } from "@vexil/config";
import { createLogger } from "@vexil/logger";
import { runServiceProcess } from "@vexil/runtime";
import { adminEnv } from "./config.js";
import { createAdminDeps } from "./compose.js";
import { createAdminService, type AdminService } from "./service.js";

const config = loadConfig(adminEnv, process.env);
const logger = createLogger({ service: "admin", level: config.LOG_LEVEL });
let admin: AdminService | undefined;
await runServiceProcess({
  name: "admin",
  config,
  logger,
  create: async (engines) => (admin = createAdminService(await createAdminDeps({ engines, settings: config, logger }))),
});
if (admin?.createdAdminSecret) {
  process.stdout.write(`\nCreated the first admin API token (shown once, keep it):\n  ${admin.createdAdminSecret}\n\n`);
}
