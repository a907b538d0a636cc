import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkPool } from "../src/sdks.js";
import { waitFor } from "../src/servers.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/**
 * An import of thousands of flags through the public API of a real server: a body over the usual
 * 100 kB, written a chunk per transaction under its progress record, every flag served to a real
 * SDK; and a server killed in the middle of one, restarted, refusing the import while the stopped
 * run's lease lasts, then finishing it from where it stopped without writing any flag twice.
 */
const tokens = { admin: tokenSecret("*", "*"), client: tokenSecret("*", "development") };
const environment = "development";
const flagCount = 1600;
const chunks = flagCount / 200;
const env = { INIT_ADMIN_API_TOKENS: tokens.admin, INIT_CLIENT_API_TOKENS: tokens.client, LOG_LEVEL: "info" };

let dataDir: string;
let vexil: VexilProcess;
const sdks = sdkPool();

const call = (route: string, body?: unknown) =>
  fetch(`${vexil.url}${route}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: tokens.admin, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function json(res: Response, status = 200): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

/** `flagCount` flags, each with a rollout strategy, a tag and its on/off state. */
function bigImport(project: string, prefix: string) {
  const names = Array.from({ length: flagCount }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
  return {
    project,
    environment,
    data: {
      features: names.map((name) => ({ name, type: "release" })),
      featureStrategies: names.map((name, i) => ({
        name: "flexibleRollout",
        featureName: name,
        parameters: { rollout: String(i % 101), stickiness: "default", groupId: name },
      })),
      featureEnvironments: names.map((name, i) => ({ featureName: name, enabled: i % 3 !== 0 })),
      featureTags: names.map((name) => ({ featureName: name, tagType: "simple", tagValue: prefix })),
      tagTypes: [{ name: "simple" }],
    },
  };
}

/** The import's log line `msg`; the server's log comes through a pipe, possibly a moment after its answer. */
const logged = (msg: string) => vexil.logLines().find((l) => l.module === "import" && l.msg === msg);

const flagsIn = async (project: string) =>
  (await json(await call(`/api/admin/search/features?project=IS:${project}&limit=1`))).total as number;
const eventsOf = async (project: string, type: string) =>
  (await json(await call(`/api/admin/search/events?project=${project}&type=${type}&limit=1`))).total as number;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "vexil-large-import-"));
  vexil = await startVexilProcess({ env, dataDir });
  for (const id of ["bulk", "crash"]) await json(await call("/api/admin/projects", { id, name: id }), 201);
}, 120_000);

afterAll(async () => {
  sdks.stopAll();
  await vexil?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("an import of thousands of flags", () => {
  it("takes a body over 100 kB, writes it in chunks, and the SDK gets every flag", async () => {
    const body = bigImport("bulk", "bulk");
    const size = JSON.stringify(body).length;
    expect(size).toBeGreaterThan(100_000);
    expect(size).toBeLessThan(500_000);
    await json(await call("/api/admin/features-batch/import", body));

    await expect.poll(() => logged("import complete")).toMatchObject({ project: "bulk", chunks });
    expect(logged("import started in chunks")).toMatchObject({ project: "bulk", chunks });
    expect(await flagsIn("bulk")).toBe(flagCount);
    expect(await eventsOf("bulk", "features-imported")).toBe(1);

    const sdk = await sdks.serverSdk(vexil, tokens.client, "polling");
    expect(sdk.getFeatureToggleDefinitions().filter((f) => f.project === "bulk")).toHaveLength(flagCount);
    // Off every third flag; a 100 % rollout on the others.
    expect(sdk.isEnabled("bulk-0100", { userId: "u1" })).toBe(true);
    expect(sdk.isEnabled("bulk-0099", { userId: "u1" })).toBe(false);
    sdk.destroy();
  }, 300_000);

  it("killed in the middle, it is refused while the stopped run's lease lasts, then finished from where it stopped", async () => {
    const body = bigImport("crash", "crash");
    const posted = call("/api/admin/features-batch/import", body).then(
      (res) => res.status,
      () => "cut" as const,
    );
    // The second chunk seen (so the first is on disk: a chunk's transaction returns once its commit
    // is durable, and only then does the next begin), then the process dies at once, as in a crash.
    expect(await waitFor(async () => (await flagsIn("crash")) >= 400, 120_000, 20)).toBe(true);
    await vexil.kill();
    expect(await posted).toBe("cut");

    vexil = await startVexilProcess({ env, dataDir });
    const written = await flagsIn("crash");
    expect(written % 200).toBe(0);
    expect(written).toBeGreaterThanOrEqual(200);
    expect(written).toBeLessThan(flagCount);

    const refused = await json(await call("/api/admin/features-batch/import", body), 409);
    expect(refused).toMatchObject({ name: "NameExistsError" });
    expect(refused.message).toContain(`An import into project crash is running (${written / 200} of ${chunks} chunks written`);
    const resumeAt = Date.parse(/post that import again after (\S+) to finish it/.exec(refused.message)![1]!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, resumeAt - Date.now()) + 1000));

    await json(await call("/api/admin/features-batch/import", body));
    await expect.poll(() => logged("import resumed")).toMatchObject({ project: "crash", from: written / 200, resumes: 1 });
    expect(await flagsIn("crash")).toBe(flagCount);
    // Nothing written twice: one creation and one strategy per flag, one import event.
    expect(await eventsOf("crash", "feature-created")).toBe(flagCount);
    expect(await eventsOf("crash", "feature-strategy-add")).toBe(flagCount);
    expect(await eventsOf("crash", "features-imported")).toBe(1);
    const sdk = await sdks.serverSdk(vexil, tokens.client, "polling");
    const served = sdk.getFeatureToggleDefinitions().filter((f) => f.project === "crash");
    expect(served).toHaveLength(flagCount);
    for (const flag of served) expect(flag.strategies).toHaveLength(1);
  }, 400_000);
});
