import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { startSystem, type RunningSystem } from "@vexil/gateway";
import { createLogger } from "@vexil/logger";
import { platformEnv } from "@vexil/runtime";

/**
 * Every line the whole system logs at debug level, through a token's life (create, use, change,
 * revoke), a sign-in, a personal access token and an invite signup: no secret may appear.
 */
describe("secrets in logs", () => {
  const lines: string[] = [];
  const adminToken = createTokenSecret({ projects: ["*"], environment: "*" });
  const initialPassword = "Initial-Passw0rd!";
  let dataDir: string;
  let system: RunningSystem;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "vexil-logs-"));
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().split("\n").filter(Boolean));
        done();
      },
    });
    system = await startSystem(
      {
        platform: platformEnv.parse({ DATA_DIR: dataDir }),
        admin: {
          INIT_ADMIN_API_TOKENS: [adminToken],
          INIT_CLIENT_API_TOKENS: [],
          INIT_FRONTEND_API_TOKENS: [],
          INIT_ADMIN_USERNAME: "root",
          INIT_ADMIN_PASSWORD: initialPassword,
        },
        frontendEval: { FRONTEND_API_ENABLED: true },
        port: 0,
        host: "127.0.0.1",
      },
      createLogger({ service: "e2e", level: "debug", destination }),
    );
  });
  afterAll(async () => {
    await system?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = (
    pathname: string,
    { method = "GET", body, auth, cookie }: { method?: string; body?: unknown; auth?: string; cookie?: string } = {},
  ) =>
    fetch(`${system.url}${pathname}`, {
      method,
      redirect: "manual",
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("never writes a token secret, session id or password", async () => {
    const secrets: string[] = [adminToken, initialPassword];

    const created = await call("/api/admin/api-tokens", {
      method: "POST",
      auth: adminToken,
      body: { tokenName: "logged", type: "frontend", environment: "development", projects: ["default"] },
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    secrets.push(secret);
    // Admitted (200, or 503 before any flag snapshot exists); what matters here is what gets logged.
    expect([200, 503]).toContain((await call("/api/frontend", { auth: secret })).status);
    expect([200, 503]).toContain((await call("/api/frontend", { auth: `Bearer ${secret}` })).status);
    expect(
      (
        await call(`/api/admin/api-tokens/${encodeURIComponent(secret)}`, {
          method: "PUT",
          auth: adminToken,
          body: { expiresAt: "2099-01-01T00:00:00.000Z" },
        })
      ).status,
    ).toBe(200);
    expect((await call(`/api/admin/api-tokens/${encodeURIComponent(secret)}`, { method: "DELETE", auth: adminToken })).status).toBe(200);
    expect((await call("/api/frontend", { auth: secret })).status).toBe(401);

    const login = await call("/auth/simple/login", { method: "POST", body: { username: "root", password: initialPassword } });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0];
    secrets.push(cookie.split("=")[1]);
    expect((await call("/auth/simple/login", { method: "POST", body: { username: "root", password: "Wrong-passw0rd!" } })).status).toBe(
      401,
    );
    secrets.push("Wrong-passw0rd!");

    const pat = await call("/api/admin/user/tokens", {
      method: "POST",
      cookie,
      body: { description: "ci", expiresAt: "2099-01-01T00:00:00.000Z" },
    });
    expect(pat.status).toBe(201);
    const patSecret = ((await pat.json()) as { secret: string }).secret;
    secrets.push(patSecret);
    expect((await call("/api/admin/user", { auth: patSecret })).status).toBe(200);

    const changed = "Changed-passw0rd!";
    secrets.push(changed);
    expect(
      (await call("/api/admin/user-admin/1/change-password", { method: "POST", auth: adminToken, body: { password: changed } })).status,
    ).toBe(200);

    const invite = await call("/api/admin/invite-link/tokens", {
      method: "POST",
      auth: adminToken,
      body: { name: "team", expiresAt: "2099-01-01T00:00:00.000Z" },
    });
    const inviteSecret = ((await invite.json()) as { secret: string }).secret;
    secrets.push(inviteSecret);
    const signupPassword = "Signup-passw0rd!";
    secrets.push(signupPassword);
    expect((await call(`/api/admin/invite-link/tokens/${inviteSecret}`, { auth: adminToken })).status).toBe(200);
    expect(
      (await call(`/invite/${inviteSecret}/signup`, { method: "POST", body: { email: "new@example.com", password: signupPassword } }))
        .status,
    ).toBe(201);
    expect((await call("/logout", { method: "POST", cookie })).status).toBe(302);

    expect(lines.length).toBeGreaterThan(10);
    const all = lines.join("\n");
    for (const value of secrets) {
      // The random part is what makes a secret usable; the `<project>:<env>.` prefix is not secret.
      const sensitive = value.includes(".") ? value.slice(value.indexOf(".") + 1) : value;
      expect(all, `log contains a secret (${value.slice(0, 12)}...)`).not.toContain(sensitive);
      expect(all).not.toContain(encodeURIComponent(value));
    }
  });
});
