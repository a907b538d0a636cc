import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type ApiInit, type TestSystem } from "../src/harness.js";
import { waitFor } from "../src/servers.js";

/**
 * The permission matrix: each kind of caller against each surface and a sample of admin endpoints.
 * README.md (## Access) shows the same table; `ok` is a 2xx answer.
 */
type Outcome = "ok" | 401 | 403;

const endpoints = {
  readStrategies: { method: "GET", path: "/api/admin/strategies" },
  createSegment: { method: "POST", path: "/api/admin/segments", body: (caller: string) => ({ name: `matrix-${caller}`, constraints: [] }) },
  readEvents: { method: "GET", path: "/api/admin/events" },
  listApiTokens: { method: "GET", path: "/api/admin/api-tokens" },
  createApiToken: {
    method: "POST",
    path: "/api/admin/api-tokens",
    body: (caller: string) => ({ tokenName: `matrix-${caller}`, type: "client" }),
  },
  listUsers: { method: "GET", path: "/api/admin/user-admin" },
  saveSaml: { method: "POST", path: "/api/admin/auth/saml/settings", body: () => ({ enabled: false }) },
  feedback: { method: "POST", path: "/feedback", body: () => ({ category: "matrix" }) },
  frontendApi: { method: "GET", path: "/api/frontend" },
  clientApi: { method: "GET", path: "/api/client/features" },
} as const;
type Endpoint = keyof typeof endpoints;

const row = (...outcomes: Outcome[]): Record<Endpoint, Outcome> =>
  Object.fromEntries((Object.keys(endpoints) as Endpoint[]).map((name, i) => [name, outcomes[i]])) as Record<Endpoint, Outcome>;

//                                 strategies segment events tokens newtoken users  saml   feedback frontend client
const matrix: Record<string, Record<Endpoint, Outcome>> = {
  "no credential": row(401, 401, 401, 401, 401, 401, 401, 401, 401, 401),
  "unknown token": row(401, 401, 401, 401, 401, 401, 401, 401, 401, 401),
  "admin token": row("ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", 403, 403),
  "client token": row(403, 403, 403, 403, 403, 403, 403, 403, 403, "ok"),
  "frontend token": row(403, 403, 403, 403, 403, 403, 403, 403, "ok", 403),
  "client token for a project created at run time": row(403, 403, 403, 403, 403, 403, 403, 403, 403, "ok"),
  "frontend token for several projects": row(403, 403, 403, 403, 403, 403, 403, 403, "ok", 403),
  "Admin user (session)": row("ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", 401, 401),
  "Editor user (session)": row("ok", "ok", "ok", 403, 403, 403, 403, "ok", 401, 401),
  "Viewer user (session)": row("ok", 403, "ok", 403, 403, 403, 403, "ok", 401, 401),
  "Editor user (PAT)": row("ok", "ok", "ok", 403, 403, 403, 403, "ok", 401, 401),
  "Viewer user (PAT)": row("ok", 403, "ok", 403, 403, 403, 403, "ok", 401, 401),
};

let vexil: TestSystem;
const credentials: Record<string, ApiInit> = {};
const password = "Matrix-passw0rd!";

async function signIn(username: string, rootRole: string): Promise<{ cookie: string; pat: string }> {
  const created = await vexil.api("/api/admin/user-admin", { method: "POST", body: { username, rootRole, password } });
  expect(created.status).toBe(201);
  const login = await vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
  const cookie = login.headers.get("set-cookie")!.split(";")[0];
  const pat = await vexil.api("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie },
    body: { description: "matrix", expiresAt: "2099-01-01T00:00:00.000Z" },
  });
  return { cookie, pat: ((await pat.json()) as { secret: string }).secret };
}

beforeAll(async () => {
  vexil = await startTestSystem();
  // A flag makes the admin publish the development snapshot, so the SDK surfaces answer 200.
  const flag = await vexil.api("/api/admin/projects/default/features", { method: "POST", body: { name: "matrix-flag" } });
  expect(flag.status).toBeLessThan(300);
  // Tokens scoped to projects answer as their type does, whatever the scope.
  await vexil.createProject("matrix-fresh");
  const scopedClient = await vexil.createApiToken({ type: "client", projects: ["matrix-fresh"] });
  const scopedFrontend = await vexil.createApiToken({ type: "frontend", projects: ["default", "matrix-fresh"] });
  const published = await waitFor(async () => (await vexil.api("/api/frontend", { token: scopedFrontend })).status === 200, 60_000);
  expect(published, "the frontend API never answered 200").toBe(true);
  const admin = await signIn("matrix-admin", "Admin");
  const editor = await signIn("matrix-editor", "Editor");
  const viewer = await signIn("matrix-viewer", "Viewer");
  Object.assign(credentials, {
    "no credential": { token: null },
    "unknown token": { token: "*:*.not-a-known-token" },
    "admin token": { token: vexil.tokens.admin },
    "client token": { token: vexil.tokens.client },
    "frontend token": { token: vexil.tokens.frontend },
    "client token for a project created at run time": { token: scopedClient },
    "frontend token for several projects": { token: scopedFrontend },
    "Admin user (session)": { token: null, headers: { cookie: admin.cookie } },
    "Editor user (session)": { token: null, headers: { cookie: editor.cookie } },
    "Viewer user (session)": { token: null, headers: { cookie: viewer.cookie } },
    "Editor user (PAT)": { token: editor.pat },
    "Viewer user (PAT)": { token: viewer.pat },
  });
});
afterAll(() => vexil?.stop());

describe("permission matrix", () => {
  const cases = Object.entries(matrix).flatMap(([caller, outcomes]) =>
    (Object.entries(outcomes) as [Endpoint, Outcome][]).map(([endpoint, expected]) => ({ caller, endpoint, expected })),
  );

  it.each(cases)("$caller -> $endpoint: $expected", async ({ caller, endpoint, expected }) => {
    const { method, path, ...rest } = endpoints[endpoint];
    const slug = caller.replace(/\W+/g, "-").toLowerCase();
    const body = "body" in rest ? rest.body(slug) : undefined;
    const res = await vexil.api(path, { ...credentials[caller], method, body });
    const text = await res.text();
    if (expected === "ok") {
      expect(res.status, text).toBeGreaterThanOrEqual(200);
      expect(res.status, text).toBeLessThan(300);
      return;
    }
    expect(res.status, text).toBe(expected);
    const error = JSON.parse(text);
    expect(error).toMatchObject({ id: expect.any(String), name: expected === 401 ? "AuthenticationRequired" : "NoAccessError" });
    if (expected === 403) expect(error.message).toMatch(/You don't have the required permission: [A-Z_]+/);
  });

  it("names the permission and the environment a caller lacks", async () => {
    const res = await vexil.api("/api/admin/projects/default/features/matrix-flag/environments/production/on", {
      ...credentials["Viewer user (session)"],
      method: "POST",
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      name: "NoAccessError",
      message: "You don't have the required permission: UPDATE_FEATURE_ENVIRONMENT in environment production",
    });
    const editor = await vexil.api("/api/admin/projects/default/features/matrix-flag/environments/production/on", {
      ...credentials["Editor user (PAT)"],
      method: "POST",
    });
    expect(editor.status).toBe(200);
  });
});
