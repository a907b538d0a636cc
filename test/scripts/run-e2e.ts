/**
 * `npm run test:e2e [-- <vitest filters and options>]`: builds what the end-to-end tier runs (turbo,
 * cached), runs `test/e2e` with every started process keeping its request log, and then, for a full
 * run, checks that each operation of the served OpenAPI document had a successful call through a
 * real process.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { coverageOf, describeUncovered, operationsOf } from "../src/openapi-coverage.js";
import {
  missingBuildMessage,
  gatewayEntry,
  repoRoot,
  requestLogDirVariable,
  startVexilProcess,
  type LoggedRequest,
} from "../src/vexil-process.js";

const vitestArgs = process.argv.slice(2);
const fullRun = !vitestArgs.some((arg) => !arg.startsWith("-"));

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  return spawnSync(command, args, { cwd: path.join(repoRoot, "test"), stdio: "inherit", env }).status ?? 1;
}

if (run("npx", ["turbo", "run", "build", "--filter=@vexil/gateway...", "--output-logs=errors-only"]) !== 0) {
  console.error("e2e: building the gateway failed");
  process.exit(1);
}
if (!existsSync(gatewayEntry)) {
  console.error(`e2e: ${missingBuildMessage}`);
  process.exit(1);
}

const logDir = await mkdtemp(path.join(tmpdir(), "vexil-e2e-requests-"));
let exitCode: number;
try {
  // Vitest's file filters add up: with the caller's filters, "e2e" (every file) would undo them.
  const files = fullRun ? ["e2e"] : [];
  exitCode = run("npx", ["vitest", "run", ...files, ...vitestArgs], { ...process.env, [requestLogDirVariable]: logDir });
  if (exitCode === 0 && fullRun) exitCode = await checkCoverage(logDir);
  else if (exitCode === 0) console.log("e2e: a filtered run; the OpenAPI coverage check runs only after the whole suite");
} finally {
  await rm(logDir, { recursive: true, force: true });
}
process.exit(exitCode);

async function checkCoverage(dir: string): Promise<number> {
  const requests: LoggedRequest[] = [];
  for (const file of await readdir(dir)) {
    for (const line of (await readFile(path.join(dir, file), "utf8")).split("\n")) if (line) requests.push(JSON.parse(line));
  }
  // The document as the gateway serves it, from a process of its own.
  const vexil = await startVexilProcess({ env: { LOG_LEVEL: "warn" } });
  let document: { paths: Record<string, Record<string, unknown>> };
  try {
    document = await (await fetch(`${vexil.url}/docs/openapi.json`)).json();
  } finally {
    await vexil.stop();
  }
  const report = coverageOf(operationsOf(document), requests);
  console.log(
    `OpenAPI coverage: ${report.covered.length} of ${report.operations.length} operations had a successful e2e call through a real process ` +
      `(${requests.length} requests logged)`,
  );
  if (report.uncovered.length === 0) return 0;
  console.error(`${report.uncovered.length} operations without a successful e2e call:\n  ${describeUncovered(report).join("\n  ")}`);
  return 1;
}
