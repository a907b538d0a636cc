import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminContract, feedbackContract, routeAccessOf, type Permission } from "@vexil/contracts";
import { startTestSystem, type ApiInit, type TestSystem } from "../src/harness.js";
import { waitFor } from "../src/servers.js";

/**
 * The permission matrix: each kind of caller against each surface and the admin endpoints. The admin
 * columns come from the contracts: every parameter-free GET the admin API declares, plus sample
 * changes; what each caller should get follows from the permission the route declares and the
 * permissions the caller holds (`GET /api/admin/user`). README.md (## Access) says the same in words.
 */
type Outcome = "ok" | 401 | 403;
/** What this test reads of a ts-rest route. */
interface AppRoute {
  method: string;
  path: string;
  metadata?: unknown;
  query?: unknown;
  responses: Record<number, unknown>;
}
type Caller = (typeof callers)[number];
interface Endpoint {
  method: string;
  path: string;
  body?: (caller: string) => unknown;
  /** The permission its contract declares; absent for the SDK surfaces, which take no admin permission. */
  permission?: Permission;
}

const callers = [
  "no credential",
  "unknown token",
  "admin token",
  "client token",
  "frontend token",
  "client token for a project created at run time",
  "frontend token for several projects",
  "Admin user (session)",
  "Editor user (session)",
  "Viewer user (session)",
  "Editor user (PAT)",
  "Viewer user (PAT)",
] as const;
const people: Partial<Record<Caller, string>> = {
  "Admin user (session)": "matrix-admin",
  "Editor user (session)": "matrix-editor",
  "Viewer user (session)": "matrix-viewer",
  "Editor user (PAT)": "matrix-editor",
  "Viewer user (PAT)": "matrix-viewer",
};

function declared(route: AppRoute): Permission {
  const access = routeAccessOf(route);
  if (!access || access.permission === "none") throw new Error(`${route.path} declares no permission`);
  return access.permission;
}
const endpoint = (route: AppRoute, body?: (caller: string) => unknown): Endpoint => ({
  method: route.method,
  path: route.path,
  body,
  permission: declared(route),
});

/** Admin GETs a caller can make with no path parameter and no query: listings and settings. */
const listings = Object.values(adminContract).flatMap((slice) =>
  (Object.values(slice) as AppRoute[]).filter((route) => {
    const access = routeAccessOf(route);
    if (route.method !== "GET" || route.path.includes(":") || !access || access.permission === "none") return false;
    // The event stream never ends; it has a test of its own.
    if (route.responses[200] && "contentType" in Object(route.responses[200])) return false;
    return (
      !("query" in route) || !route.query || (route.query as { safeParse(value: unknown): { success: boolean } }).safeParse({}).success
    );
  }),
);
const endpoints: Record<string, Endpoint> = {
  ...Object.fromEntries(listings.map((route) => [`GET ${route.path}`, endpoint(route)])),
  createSegment: endpoint(adminContract.segments.create, (caller) => ({ name: `matrix-${caller}`, constraints: [] })),
  createApiToken: endpoint(adminContract.apiTokens.create, (caller) => ({ tokenName: `matrix-${caller}`, type: "client" })),
  saveSaml: endpoint(adminContract.saml.updateSettings, () => ({ enabled: false })),
  feedback: endpoint(feedbackContract.create, () => ({ category: "matrix" })),
  frontendApi: { method: "GET", path: "/api/frontend" },
  clientApi: { method: "GET", path: "/api/client/features" },
};

/** The SDK surfaces take SDK tokens only: no admin credential or session opens them. */
const sdkSurfaces: Record<"frontendApi" | "clientApi", Partial<Record<Caller, Outcome>>> = {
  frontendApi: { "frontend token": "ok", "frontend token for several projects": "ok" },
  clientApi: { "client token": "ok", "client token for a project created at run time": "ok" },
};

/** What each signed-in person holds, as the admin API reports it to them. */
const held: Record<string, Permission[]> = {};

function outcomeFor(caller: Caller, name: string, { permission }: Endpoint): Outcome {
  if (caller === "no credential" || caller === "unknown token") return 401;
  const person = people[caller];
  if (!permission) return sdkSurfaces[name as keyof typeof sdkSurfaces][caller] ?? (person ? 401 : 403);
  if (caller === "admin token") return "ok";
  if (!person) return 403;
  const permissions = held[person]!;
  return permissions.includes("ADMIN") || permissions.includes(permission) ? "ok" : 403;
}

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
  const me = await vexil.api("/api/admin/user", { token: null, headers: { cookie } });
  held[username] = ((await me.json()) as { permissions: { permission: Permission }[] }).permissions.map((p) => p.permission);
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
  const cases = callers.flatMap((caller) => Object.keys(endpoints).map((name) => ({ caller, name })));

  it("covers the admin API's listings", () => expect(listings.length).toBeGreaterThan(20));

  it.each(cases)("$caller -> $name", async ({ caller, name }) => {
    const { method, path, body } = endpoints[name]!;
    const slug = caller.replace(/\W+/g, "-").toLowerCase();
    const res = await vexil.api(path, { ...credentials[caller], method, body: body?.(slug) });
    const expected = outcomeFor(caller, name, endpoints[name]!);
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
