import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { freePort, natsUrl, reachable, redisUrl, waitFor } from "../src/servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const available = (await reachable(natsUrl)) && (await reachable(redisUrl));
if (!available) console.log(`skipped: cluster mode needs NATS at ${natsUrl} and Redis at ${redisUrl}`);

/** Five consecutive free ports: the runner puts the gateway on the first and services after it. */
async function freeBasePort(): Promise<number> {
  for (;;) {
    const base = await freePort();
    if (base > 60_000) continue;
    const ports = [base, base + 1, base + 2, base + 3, base + 4];
    const free = await Promise.all(ports.map(async (p) => !(await reachable(`http://127.0.0.1:${p}`, 200))));
    if (free.every(Boolean)) return base;
  }
}

describe.skipIf(!available)("npm run start:cluster", () => {
  const admin = createTokenSecret({ projects: ["*"], environment: "*" });
  const frontend = createTokenSecret({ projects: ["*"], environment: "development" });
  const namespace = `test_${randomUUID().slice(0, 8)}`;
  let runner: ChildProcess;
  let dataDir: string;
  let base: number;
  let output = "";

  const strategies = () => fetch(`http://127.0.0.1:${base}/api/admin/strategies`, { headers: { authorization: admin } });

  beforeAll(async () => {
    base = await freeBasePort();
    dataDir = await mkdtemp(path.join(tmpdir(), "vexil-cluster-"));
    runner = spawn(process.execPath, ["--import", "tsx", "--conditions=vexil-source", "services/gateway/src/cluster.ts"], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(base),
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        NATS_URL: natsUrl,
        REDIS_URL: redisUrl,
        NATS_STREAM: namespace,
        NATS_NAMESPACE: namespace,
        REDIS_KEY_PREFIX: `${namespace}:`,
        INIT_ADMIN_API_TOKENS: admin,
        INIT_FRONTEND_API_TOKENS: frontend,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    runner.stdout!.on("data", (d) => (output += d));
    runner.stderr!.on("data", (d) => (output += d));
    const up = await waitFor(async () => (await strategies()).status === 200, 60_000, 250);
    if (!up) throw new Error(`cluster did not come up:\n${output}`);
  }, 90_000);

  afterAll(async () => {
    if (runner?.exitCode === null) {
      runner.kill("SIGTERM");
      await new Promise((r) => runner.once("exit", r));
    }
    await rm(dataDir, { recursive: true, force: true });
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
    await nc.close();
  }, 30_000);

  it("serves the admin API through the gateway while admin runs in another process", async () => {
    const res = await strategies();
    expect(res.status).toBe(200);
    expect((await res.json()).strategies.length).toBeGreaterThan(0);
    const ready = await (await fetch(`http://127.0.0.1:${base}/ready`)).json();
    expect(ready.checks.map((c: { name: string }) => c.name).sort()).toEqual(["admin", "frontend-eval", "signal-ingest"]);
  });

  it("carries a flag change from the admin process to the frontend-eval process over NATS and Redis", async () => {
    const gateway = `http://127.0.0.1:${base}`;
    const asAdmin = { authorization: admin, "content-type": "application/json" };
    const created = await fetch(`${gateway}/api/admin/projects/default/features`, {
      method: "POST",
      headers: asAdmin,
      body: JSON.stringify({ name: "cluster-flag" }),
    });
    expect(created.status).toBe(201);
    const enabled = await fetch(`${gateway}/api/admin/projects/default/features/cluster-flag/environments/development/on`, {
      method: "POST",
      headers: { authorization: admin },
    });
    expect(enabled.status).toBe(200);

    const toggles = async () => {
      const res = await fetch(`${gateway}/api/frontend?userId=u1`, { headers: { authorization: frontend } });
      return res.ok ? ((await res.json()).toggles as Array<{ name: string }>).map((t) => t.name) : [];
    };
    expect(await waitFor(async () => (await toggles()).includes("cluster-flag"), 10_000, 50)).toBe(true);
  }, 30_000);

  it("recovers when the admin process is killed and started again", async () => {
    const adminReady = await fetch(`http://127.0.0.1:${base + 1}/ready`);
    expect(adminReady.status).toBe(200);
    // The admin process is the runner's child started from services/admin.
    const pid = Number(
      execFileSync("pgrep", ["-P", String(runner.pid), "-f", "services/admin/src/main.ts"])
        .toString()
        .trim(),
    );
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");

    const down = await waitFor(async () => (await strategies()).status === 503, 5_000, 50);
    expect(down).toBe(true);
    const body = await (await strategies()).json();
    expect(body).toMatchObject({ name: "NotReady" });

    const back = await waitFor(async () => (await strategies()).status === 200, 30_000, 200);
    expect(back).toBe(true);
  }, 60_000);
});
