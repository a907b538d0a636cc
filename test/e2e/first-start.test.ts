import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clusterAvailable, createdAdminSecretIn, startTestSystem } from "../src/harness.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

/** Lines of the process output that are JSON log lines, raw (to see duplicate keys JSON.parse would hide). */
const rawLogLines = (vexil: VexilProcess) =>
  vexil
    .output()
    .split("\n")
    .map((line) => line.slice(line.indexOf("{")))
    .filter((line) => line.startsWith('{"level"'));

/**
 * No line names its service twice, nothing below warn carries an error object, and a start warns
 * of nothing but the default password (services waiting for admin while it starts is no warning).
 */
function expectQuietLogs(vexil: VexilProcess) {
  for (const line of rawLogLines(vexil)) {
    expect(line.match(/"service":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
  }
  const noisy = vexil.logLines().filter((l) => l.level < 40 && ("err" in l || "error" in l));
  expect(noisy).toEqual([]);
  const warnings = vexil.logLines().filter((l) => l.level >= 40 && !/still has the default password/.test(l.msg));
  expect(warnings.map((l) => `${l.service}: ${l.msg}`)).toEqual([]);
}

const defaultPasswordWarnings = (vexil: VexilProcess) =>
  vexil.logLines().filter((l) => l.level === 40 && /still has the default password/.test(l.msg));

describe("first start of `npm start` (the compiled gateway)", () => {
  let dataDir: string;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("names the initial user and its password at the first start only, and warns at every start until it is changed", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "vexil-first-start-"));
    const first = await startVexilProcess({ dataDir });
    let token: string;
    try {
      const banner = first.output();
      // Not a terminal: the banner is one log record among the JSON lines, not text between them.
      const record = first.logLines().find((line) => typeof line.msg === "string" && line.msg.startsWith("Vexil is running at"));
      expect(record).toMatchObject({ level: 30, service: "gateway" });
      expect(record!.banner).toContain("Initial admin user created: admin / unleash4all (sign in at POST /auth/simple/login).");
      expect(banner).toContain("Initial admin user created: admin / unleash4all");
      expect(banner).toMatch(/api\/admin\/user-admin\/1\/change-password/);
      expect(defaultPasswordWarnings(first)).toHaveLength(1);
      token = createdAdminSecretIn(first)!;
      expect(token).toMatch(/^\*:\*\./);
      expectQuietLogs(first);
    } finally {
      await first.stop();
    }

    const second = await startVexilProcess({ dataDir });
    try {
      expect(second.output()).toContain("WARNING: the admin user admin still has the default password shown at the first start");
      // Only the first start's console ever shows the password.
      expect(second.output()).not.toContain("unleash4all");
      expect(defaultPasswordWarnings(second)).toHaveLength(1);
      const changed = await fetch(`${second.url}/api/admin/user-admin/1/change-password`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({ password: "A-much-better-s3cret" }),
      });
      expect(changed.status).toBe(200);
    } finally {
      await second.stop();
    }

    const third = await startVexilProcess({ dataDir });
    try {
      expect(defaultPasswordWarnings(third)).toEqual([]);
      expect(third.output()).not.toContain("unleash4all");
      const login = await fetch(`${third.url}/auth/simple/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password: "A-much-better-s3cret" }),
      });
      expect(login.status).toBe(200);
    } finally {
      await third.stop();
    }
  }, 300_000);

  it("with INIT_ADMIN_PASSWORD set before the first start: no default password, no warning", async () => {
    const vexil = await startVexilProcess({ env: { INIT_ADMIN_PASSWORD: "chosen-before-start" } });
    try {
      expect(vexil.output()).toContain("Initial admin user created: admin, with the password from INIT_ADMIN_PASSWORD.");
      expect(vexil.output()).not.toContain("unleash4all");
      expect(defaultPasswordWarnings(vexil)).toEqual([]);
    } finally {
      await vexil.stop();
    }
  }, 300_000);
});

const available = await clusterAvailable("cluster logs");

describe.skipIf(!available)("first start of `npm run start:cluster`", () => {
  it("answers the API as soon as /health answers, as scripts that wait for /health expect", async () => {
    const token = "*:*.first-start-health-0123456789abcdef0123456789abcdef0123456789";
    const vexil = await startVexilProcess({ until: "live", env: { LOG_LEVEL: "warn", INIT_ADMIN_API_TOKENS: token } });
    try {
      const headers = { authorization: token, "content-type": "application/json" };
      const created = await fetch(`${vexil.url}/api/admin/projects`, {
        method: "POST",
        headers,
        body: JSON.stringify({ id: "at-once", name: "at-once" }),
      });
      expect(created.status, await created.text()).toBe(201);
      expect((await fetch(`${vexil.url}/ready`)).status).toBe(200);
    } finally {
      await vexil.stop();
    }
  });

  it("logs no error objects at info level and names each service once per line", async () => {
    const system = await startTestSystem({ mode: "cluster", seedTokens: false });
    const vexil = system.process;
    try {
      expect(vexil.output()).toContain("Initial admin user created: admin / unleash4all");
      expect(defaultPasswordWarnings(vexil)).toHaveLength(1);
      expectQuietLogs(vexil);
      const services = new Set(vexil.logLines().map((l) => l.service));
      expect([...services].sort()).toEqual(
        expect.arrayContaining(["addon-delivery", "admin", "frontend-eval", "gateway", "signal-ingest"]),
      );
    } finally {
      await system.stop();
    }
  }, 300_000);
});
