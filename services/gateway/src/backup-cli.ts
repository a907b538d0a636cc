import { loadConfig } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";
import { backupInstallation, restoreInstallation } from "./backup.js";

/** `npm run backup -- <file>` and `npm run restore -- <file>`, with the server's DATA_DIR or MONGODB_URL. */
const [command, file] = process.argv.slice(2);
if ((command !== "backup" && command !== "restore") || !file) {
  process.stderr.write("usage: npm run backup -- <file>   |   npm run restore -- <file>\n");
  process.exit(2);
}
const config = loadConfig(platformEnv, process.env);
try {
  const counts = command === "backup" ? await backupInstallation(config, file) : await restoreInstallation(config, file);
  const summary = Object.entries(counts)
    .map(([service, documents]) => `${service}: ${documents} documents`)
    .join(", ");
  process.stdout.write(`${command === "backup" ? "Backed up into" : "Restored from"} ${file} (${summary})\n`);
} catch (err) {
  process.stderr.write(`${command} failed: ${(err as Error).message}\n`);
  process.exit(1);
}
