/**
 * Vexil (the compiled single process) with its DATA_DIR on a 3 MiB tmpfs of the test's own, and
 * flags created through the admin API until the disk is full. Checked: a write is acknowledged
 * (2xx) only once its journal record is whole on disk, one that cannot be written is answered 503
 * with the error body (never 2xx, never another 5xx), reads go on and `/health` names the store
 * while it is full, writes are taken again by themselves within seconds of space returning, and
 * after a crash while full and a restart every acknowledged flag is there. Mounting needs root:
 * without it the suite skips and says so.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { gatewayEntry, missingBuildMessage, startVexilProcess, type VexilProcess } from "../src/vexil-process.js";
import { adminFetch, type Gateway } from "./load.js";

const run = promisify(execFile);
const adminToken = createTokenSecret({ projects: ["*"], environment: "*" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let mountPoint: string | undefined;
let skipReason = existsSync(gatewayEntry) ? "" : missingBuildMessage;
beforeAll(async () => {
  if (skipReason) return;
  const dir = await mkdtemp(join(tmpdir(), "vexil-faults-disk-"));
  try {
    await run("mount", ["-t", "tmpfs", "-o", "size=3m,mode=0700", "tmpfs", dir]);
    mountPoint = dir;
  } catch (err) {
    skipReason = `cannot mount a tmpfs here, so no disk can be filled (${(err as Error).message.split("\n")[0]})`;
    await rmdir(dir);
  }
});
afterAll(async () => {
  if (!mountPoint) return;
  await run("umount", [mountPoint]);
  await rmdir(mountPoint);
});

interface Outcome {
  status: number;
  body: string;
}

/** Creates flags, `concurrency` at a time, until `refusedInARow` answers in a row were not 2xx (or `limit` tries). */
async function createUntilFull(
  gateway: Gateway,
  prefix: string,
  acknowledged: Set<string>,
  { concurrency = 4, refusedInARow = 20, limit = 4000 } = {},
) {
  const refusals: Outcome[] = [];
  let consecutive = 0;
  let next = 0;
  const worker = async () => {
    while (consecutive < refusedInARow && next < limit) {
      const name = `${prefix}-${next++}`;
      const res = await adminFetch(gateway, "/api/admin/projects/default/features", { method: "POST", body: { name } });
      const body = await res.text();
      if (res.ok) {
        acknowledged.add(name);
        consecutive = 0;
      } else {
        refusals.push({ status: res.status, body });
        consecutive++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { tries: next, refusals };
}

async function flagNames(gateway: Gateway): Promise<Set<string>> {
  const res = await adminFetch(gateway, "/api/admin/projects/default/features");
  expect(res.status).toBe(200);
  const { features } = (await res.json()) as { features: Array<{ name: string }> };
  return new Set(features.map((feature) => feature.name));
}

const healthOf = async (url: string) =>
  (await (await fetch(`${url}/health`)).json()) as {
    health: string;
    details?: { degraded: boolean; reasons: Array<{ name: string; reason: string }> };
  };

describe("the journal on disk", () => {
  let vexil: VexilProcess | undefined;
  afterAll(async () => {
    await vexil?.stop();
  });

  it("acknowledges only what is on disk, answers 503 while full, recovers by itself, and keeps every acknowledged write across a crash", async (context) => {
    if (!mountPoint) return context.skip(skipReason);
    const dataDir = join(mountPoint, "data");
    // Space handed back in the middle of the run.
    const ballast = join(mountPoint, "ballast");
    await writeFile(ballast, Buffer.alloc(256 * 1024));
    vexil = await startVexilProcess({ dataDir, env: { INIT_ADMIN_API_TOKENS: adminToken, NATS_URL: undefined, REDIS_URL: undefined } });
    const gateway: Gateway = { url: vexil.url, admin: adminToken, client: "" };
    const acknowledged = new Set<string>();

    // Fill the disk.
    const first = await createUntilFull(gateway, "fill", acknowledged);
    expect(first.refusals.length).toBeGreaterThanOrEqual(20);
    const statuses = [...new Set(first.refusals.map((r) => r.status))];
    expect(
      statuses,
      first.refusals
        .slice(0, 3)
        .map((r) => r.body)
        .join("\n"),
    ).toEqual([503]);
    expect(JSON.parse(first.refusals[0]!.body)).toMatchObject({ name: "NotReady", message: expect.stringMatching(/journal/) });
    const acknowledgedWhenFull = acknowledged.size;

    // Full: reads are served, /health says what is wrong.
    expect((await flagNames(gateway)).size).toBeGreaterThanOrEqual(acknowledgedWhenFull);
    const full = await healthOf(vexil.url);
    expect(full.details?.degraded).toBe(true);
    expect(full.details?.reasons.map((r) => r.name)).toContain("store-writes:admin");
    const failureLine = vexil.logLines().find((line) => line.msg?.startsWith("store journal write failed"));
    expect(failureLine, "the failed write is logged with what was cut off").toMatchObject({
      level: 50,
      offset: expect.any(Number),
      cutBytes: expect.any(Number),
      prefix: expect.stringMatching(/^\[\{"op":"/),
    });

    // Space returns: writes are taken again without a restart.
    await rm(ballast);
    const freedAt = Date.now();
    let recoveredAfterMs: number | undefined;
    for (let attempt = 0; recoveredAfterMs === undefined && Date.now() - freedAt < 30_000; attempt++) {
      const name = `recovery-${attempt}`;
      const res = await adminFetch(gateway, "/api/admin/projects/default/features", { method: "POST", body: { name } });
      if (res.ok) {
        acknowledged.add(name);
        recoveredAfterMs = Date.now() - freedAt;
      } else {
        expect(res.status).toBe(503);
        await sleep(100);
      }
    }
    expect(recoveredAfterMs, "writes taken again once space returned").toBeDefined();
    expect((await healthOf(vexil.url)).details?.reasons.map((r) => r.name)).not.toContain("store-writes:admin");

    // Fill it again, then crash while it is full.
    const second = await createUntilFull(gateway, "refill", acknowledged);
    expect([...new Set(second.refusals.map((r) => r.status))]).toEqual([503]);
    const before = vexil.output();
    const errorLines = vexil.logLines().filter((line) => line.level >= 50);
    await vexil.kill();

    // A restart on the still-full disk serves everything that was acknowledged.
    vexil = await startVexilProcess({ dataDir, env: { INIT_ADMIN_API_TOKENS: adminToken, NATS_URL: undefined, REDIS_URL: undefined } });
    const found = await flagNames({ ...gateway, url: vexil.url });
    const missing = [...acknowledged].filter((name) => !found.has(name));
    expect(missing, "acknowledged flags missing after the restart").toEqual([]);

    // Room again: the restarted process takes writes.
    await run("mount", ["-o", "remount,size=8m", mountPoint]);
    const after = await adminFetch({ ...gateway, url: vexil.url }, "/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "after-restart" },
    });
    expect(after.status, await after.text()).toBe(201);

    expect(`${before}\n${vexil.output()}`).not.toMatch(/restart to recover/);
    console.log(
      `full disk: ${first.tries + second.tries} creates sent, ${acknowledged.size} acknowledged (${acknowledgedWhenFull} before the disk first filled), ` +
        `${first.refusals.length + second.refusals.length} refused with 503; after a SIGKILL while full and a restart ${acknowledged.size - missing.length} of ${acknowledged.size} acknowledged found ` +
        `(${found.size} flags in all); writes taken again ${recoveredAfterMs} ms after space returned; ` +
        `${errorLines.length} error lines logged before the crash (${errorLines.filter((line) => line.msg === "request failed").length} of them refused requests)`,
    );
  });

  it("stops the start of a store whose journal is corrupt before its end, with one fatal line naming where", async (context) => {
    if (!existsSync(gatewayEntry)) return context.skip(missingBuildMessage);
    const dataDir = await mkdtemp(join(tmpdir(), "vexil-faults-corrupt-"));
    try {
      await mkdir(join(dataDir, "admin"), { recursive: true, mode: 0o700 });
      await writeFile(join(dataDir, "admin", "journal.ejsonl"), 'not a record\n[{"op":"sequence","name":"s","value":1}]\n');
      const started = await startVexilProcess({ dataDir, readyTimeoutMs: 60_000, env: { NATS_URL: undefined, REDIS_URL: undefined } }).then(
        () => "ready",
        (err: Error) => err.message,
      );
      expect(started).toMatch(/did not become ready/);
      const fatal = started.split("\n").filter((line) => line.includes("Corrupt store journal"));
      expect(fatal, started.slice(-2000)).toHaveLength(1);
      expect(JSON.parse(fatal[0]!.slice(fatal[0]!.indexOf("{")))).toMatchObject({
        level: 60,
        store: "admin",
        line: 1,
        offset: 0,
        prefix: "not a record",
      });
      expect(started).not.toMatch(/unreachable at start; trying again/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
