import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagAdmin, type AdminCall } from "../src/flag-admin.js";
import { clientFeatures, frontendAnswers, sdkAnswers, sdkContexts } from "../src/sdk-answers.js";
import { sdkPool } from "../src/sdks.js";
import { tokenSecret } from "../src/tokens.js";
import { repoRoot, startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * `npm run backup` of a running Vexil (embedded engine), `npm run restore` into a fresh data
 * directory, and a Vexil started on it: the same admin state, the same API tokens, the same
 * SDK answers.
 */
const run = promisify(execFile);
const adminToken = tokenSecret("*", "*");
const project = `kept-${randomUUID().slice(0, 6)}`;
const contexts = sdkContexts(30, "plan", ["free", "pro"]);
const sdks = sdkPool();
let original: VexilProcess;
let restored: VexilProcess | undefined;
let workDir: string;
let clientToken: string;
let frontendToken: string;

const callOn =
  (vexil: () => VexilProcess): AdminCall =>
  (urlPath, init = {}) =>
    fetch(`${vexil().url}${urlPath}`, {
      method: init.method ?? "GET",
      headers: { authorization: adminToken, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

async function json(res: Response, status = 200): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

const npmRun = (script: "backup" | "restore", file: string, dataDir: string) =>
  run("npm", ["run", "--silent", script, "--", file], { cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDir } });

/** What an operator sees in the admin API, in a stable order. */
async function adminState(call: AdminCall): Promise<unknown> {
  const get = async (urlPath: string) => json(await call(urlPath));
  const projects = (await get("/api/admin/projects")).projects.map((p: { id: string }) => p.id).sort();
  const features: unknown[] = [];
  for (const id of projects) {
    for (const flag of (await get(`/api/admin/projects/${id}/features`)).features) {
      features.push(await get(`/api/admin/projects/${id}/features/${flag.name}`));
    }
  }
  const tokens = (await get("/api/admin/api-tokens")).tokens.map((t: { secret: string; type: string }) => `${t.type} ${t.secret}`).sort();
  return {
    projects,
    features,
    segments: await get("/api/admin/segments"),
    context: await get("/api/admin/context"),
    tags: await get("/api/admin/tags"),
    tokens,
    changeRequests: await get(`/api/admin/projects/${project}/change-requests/config`),
  };
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "vexil-backup-e2e-"));
  original = await startVexilProcess({ env: { INIT_ADMIN_API_TOKENS: adminToken } });
  const call = callOn(() => original);
  await json(await call("/api/admin/projects", { method: "POST", body: { id: project, name: project } }), 201);
  // Tokens made through the API live only in the store: the restore must bring them back.
  clientToken = (
    await json(
      await call("/api/admin/api-tokens", {
        method: "POST",
        body: { tokenName: "sdk", type: "client", environment: "development", projects: ["*"] },
      }),
      201,
    )
  ).secret;
  frontendToken = (
    await json(
      await call("/api/admin/api-tokens", {
        method: "POST",
        body: { tokenName: "web", type: "frontend", environment: "development", projects: ["*"] },
      }),
      201,
    )
  ).secret;
  await json(
    await call("/api/admin/context", { method: "POST", body: { name: "plan", legalValues: [{ value: "free" }, { value: "pro" }] } }),
    201,
  );
  const admin = flagAdmin(call, project);
  const segment = await admin.createSegment("pro-users", [{ contextName: "plan", operator: "IN", values: ["pro"] }]);
  await admin.createFeature("kept-pro", { description: "pro plan, half of them" });
  await admin.addStrategy("kept-pro", "development", {
    name: "flexibleRollout",
    parameters: { rollout: "50", stickiness: "userId", groupId: "kept-pro" },
    segments: [segment],
  });
  await admin.setVariants("kept-pro", "development", [
    { name: "a", weight: 500, weightType: "variable", stickiness: "userId", payload: { type: "string", value: "A" } },
    { name: "b", weight: 500, weightType: "variable", stickiness: "userId" },
  ]);
  await admin.setEnabled("kept-pro", "development", true);
  await admin.createFeature("kept-child");
  await admin.addStrategy("kept-child", "development", { name: "default" });
  await admin.setEnabled("kept-child", "development", true);
  await admin.addDependency("kept-child", { feature: "kept-pro" });
  await json(await call("/api/admin/features/kept-pro/tags", { method: "POST", body: { type: "simple", value: "billing" } }), 201);
  await json(
    await call(`/api/admin/projects/${project}/environments/production/change-requests/config`, {
      method: "PUT",
      body: { changeRequestsEnabled: true },
    }),
    204,
  );
}, 240_000);

afterAll(async () => {
  sdks.stopAll();
  await Promise.all([original?.stop(), restored?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("backup and restore of a whole installation", () => {
  it("backs up a running Vexil and restores it into a fresh data directory with the same state and SDK answers", async () => {
    const file = path.join(workDir, "vexil.backup.ejson");
    const backedUp = await npmRun("backup", file, original.dataDir);
    expect(backedUp.stdout).toMatch(/Backed up into .*admin: \d+ documents/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const freshDir = path.join(workDir, "restored-data");
    const restoredRun = await npmRun("restore", file, freshDir);
    expect(restoredRun.stdout).toMatch(/Restored from/);
    await expect(npmRun("restore", file, freshDir)).rejects.toMatchObject({ stderr: expect.stringMatching(/not empty/) });

    restored = await startVexilProcess({ dataDir: freshDir, env: { INIT_ADMIN_API_TOKENS: adminToken } });
    expect(await adminState(callOn(() => restored!))).toEqual(await adminState(callOn(() => original)));
    expect(await clientFeatures(restored.url, clientToken)).toEqual(await clientFeatures(original.url, clientToken));
    expect(await frontendAnswers(restored.url, frontendToken, contexts)).toEqual(
      await frontendAnswers(original.url, frontendToken, contexts),
    );

    const [before, after] = await Promise.all([
      sdks.serverSdk(original, clientToken, "polling"),
      sdks.serverSdk(restored, clientToken, "polling"),
    ]);
    const answers = sdkAnswers(before, ["kept-pro", "kept-child"], contexts);
    expect(answers.filter((a) => (a as { enabled: boolean }).enabled).length).toBeGreaterThan(0);
    expect(sdkAnswers(after, ["kept-pro", "kept-child"], contexts)).toEqual(answers);
  });

  it("explains what is wrong instead of writing a backup of nothing", async () => {
    const empty = path.join(workDir, "never-used");
    await expect(npmRun("backup", path.join(workDir, "none.ejson"), empty)).rejects.toMatchObject({
      stderr: expect.stringMatching(/Nothing to back up/),
    });
  });
});
