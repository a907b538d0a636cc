import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Every line the process writes at debug level, through a token's life (create, use, change,
 * revoke), a sign-in, a personal access token and an invite signup: no secret may appear.
 */
describe("secrets in logs", () => {
  const initialPassword = "Initial-Passw0rd!";
  let vexil: TestSystem;
  let adminToken: string;

  beforeAll(async () => {
    vexil = await startTestSystem({ env: { LOG_LEVEL: "debug", INIT_ADMIN_USERNAME: "root", INIT_ADMIN_PASSWORD: initialPassword } });
    adminToken = vexil.tokens.admin;
  });
  afterAll(() => vexil?.stop());

  const call = (
    pathname: string,
    { method = "GET", body, auth, cookie }: { method?: string; body?: unknown; auth?: string; cookie?: string } = {},
  ) =>
    fetch(`${vexil.url}${pathname}`, {
      method,
      redirect: "manual",
      headers: {
        ...(auth ? { authorization: auth } : {}),
        // As the web UI sends it: from the server's own origin.
        ...(cookie ? { cookie, origin: new URL(vexil.url).origin } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("never writes a token secret, session id or password", async () => {
    const secrets: string[] = [adminToken, vexil.tokens.client, vexil.tokens.frontend, initialPassword];

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

    const all = vexil.process.output();
    // Debug lines and a line per request were written: the check below read a real log.
    expect(vexil.process.logLines().filter((line) => line.level === 20).length).toBeGreaterThan(0);
    expect(vexil.process.requests().length).toBeGreaterThan(10);
    for (const value of secrets) {
      // The random part is what makes a secret usable; the `<project>:<env>.` prefix is not secret.
      const sensitive = value.includes(".") ? value.slice(value.indexOf(".") + 1) : value;
      expect(all, `log contains a secret (${value.slice(0, 12)}...)`).not.toContain(sensitive);
      expect(all).not.toContain(encodeURIComponent(value));
    }
  });
});
