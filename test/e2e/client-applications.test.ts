import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Unleash, UnleashEvents } from "unleash-client";
import { applicationDetailsSchema, applicationListSchema, type ApplicationDetails } from "@vexil/contracts";
import { startTestSystem, type ApiInit, type TestSystem } from "../src/harness.js";

/**
 * Client applications: SDKs announce themselves to frontend-eval (`/client/register`, and their
 * metrics), the admin records them and serves Unleash's `/api/admin/metrics/applications` paths.
 */
let vexil: TestSystem;
let sdk: Unleash | undefined;
const password = "Apps-passw0rd!";

/** Polls until `read` stops throwing (the SDK notices reach the admin in batches each second). */
async function eventually<T>(read: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const application = async (appName: string): Promise<ApplicationDetails> =>
  vexil.expectStatus(`/api/admin/metrics/applications/${encodeURIComponent(appName)}`, undefined, 200, applicationDetailsSchema);

async function signIn(username: string, rootRole: string): Promise<ApiInit> {
  const created = await vexil.api("/api/admin/user-admin", { method: "POST", body: { username, rootRole, password } });
  expect(created.status).toBe(201);
  const login = await vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
  return { token: null, headers: { cookie: login.headers.get("set-cookie")!.split(";")[0]! } };
}

beforeAll(async () => {
  vexil = await startTestSystem();
  // A flag makes the admin publish the development snapshot the SDK reads.
  await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: "apps-flag" } }, 201);
  await eventually(async () => expect((await vexil.api("/api/client/features", { token: vexil.tokens.client })).status).toBe(200));
});

afterAll(async () => {
  sdk?.destroy();
  await vexil?.stop();
});

describe("client applications", () => {
  it("records a server SDK's registration and lists the application with its instance", async () => {
    sdk = new Unleash({
      appName: "e2e-apps-server",
      instanceId: "server-1",
      url: `${vexil.url}/api`,
      customHeaders: { Authorization: vexil.tokens.client },
      refreshInterval: 60_000,
      metricsInterval: 60_000,
      backupPath: vexil.dataDir,
    });
    const registered = new Promise((resolve) => sdk!.once(UnleashEvents.Registered, resolve));
    await new Promise((resolve, reject) => {
      sdk!.once(UnleashEvents.Synchronized, resolve);
      sdk!.once(UnleashEvents.Error, reject);
    });
    await registered;

    const list = await eventually(async () => {
      const body = await vexil.expectStatus("/api/admin/metrics/applications", undefined, 200, applicationListSchema);
      expect(body.applications.map((app) => app.appName)).toContain("e2e-apps-server");
      return body;
    });
    expect(list.applications.find((app) => app.appName === "e2e-apps-server")).toMatchObject({
      description: null,
      url: null,
      color: null,
      icon: null,
      strategies: expect.arrayContaining(["default", "flexibleRollout"]),
      usage: [{ project: "*", environments: ["development"] }],
    });

    const details = await application("e2e-apps-server");
    expect(details.instances).toEqual([
      expect.objectContaining({
        appName: "e2e-apps-server",
        instanceId: "server-1",
        sdkVersion: expect.stringMatching(/^unleash-(client-node|node-sdk):/),
        sdkType: "backend",
        environment: "development",
      }),
    ]);
    expect(details.strategies).toContainEqual(expect.objectContaining({ name: "default", editable: false }));

    const events = await vexil.expectStatus("/api/admin/events?limit=1000", undefined, 200);
    const created = events.events.filter((e: any) => e.type === "application-created" && e.data.appName === "e2e-apps-server");
    expect(created).toHaveLength(1);
  });

  it("records a frontend registration and notes the instance again when it sends metrics", async () => {
    const frontend = { token: vexil.tokens.frontend };
    await vexil.expectStatus(
      "/api/frontend/client/register",
      {
        ...frontend,
        method: "POST",
        body: {
          appName: "e2e-apps-web",
          instanceId: "tab-1",
          sdkVersion: "unleash-proxy-client:3.7.0",
          started: new Date().toISOString(),
          interval: 30000,
        },
      },
      200,
    );
    const first = await eventually(async () => {
      const details = await application("e2e-apps-web");
      expect(details.instances).toHaveLength(1);
      return details.instances[0]!;
    });
    expect(first).toMatchObject({
      instanceId: "tab-1",
      sdkType: "frontend",
      sdkVersion: "unleash-proxy-client:3.7.0",
      environment: "development",
    });

    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = new Date().toISOString();
    await vexil.expectStatus(
      "/api/frontend/client/metrics",
      {
        ...frontend,
        method: "POST",
        body: {
          appName: "e2e-apps-web",
          instanceId: "tab-1",
          bucket: { start: now, stop: now, toggles: { "apps-flag": { yes: 0, no: 2 } } },
        },
      },
      200,
    );
    const after = await eventually(async () => {
      const details = await application("e2e-apps-web");
      expect(details.instances[0]!.lastSeen > first.lastSeen).toBe(true);
      return details;
    });
    expect(after.instances[0]).toMatchObject({ sdkVersion: "unleash-proxy-client:3.7.0" });
    expect(after.seenToggles).toEqual(["apps-flag"]);
  });

  it("records where SDKs with tokens for a project created at run time, and for several, read flags", async () => {
    await vexil.createProject("apps-fresh");
    await vexil.expectStatus("/api/admin/projects/apps-fresh/features", { method: "POST", body: { name: "apps-fresh-flag" } }, 201);
    const scopes = [
      { appName: "e2e-apps-one-project", projects: ["apps-fresh"] },
      { appName: "e2e-apps-two-projects", projects: ["apps-fresh", "default"] },
    ];
    for (const { appName, projects } of scopes) {
      const token = await vexil.createApiToken({ type: "client", projects });
      const scoped = new Unleash({
        appName,
        instanceId: `${appName}-1`,
        url: `${vexil.url}/api`,
        customHeaders: { Authorization: token },
        // Polls often: the new flag may reach the snapshot just after the SDK's first fetch.
        refreshInterval: 100,
        metricsInterval: 60_000,
        backupPath: vexil.dataDir,
      });
      try {
        const registered = new Promise((resolve) => scoped.once(UnleashEvents.Registered, resolve));
        await new Promise((resolve, reject) => {
          scoped.once(UnleashEvents.Synchronized, resolve);
          scoped.once(UnleashEvents.Error, reject);
        });
        await eventually(async () => {
          // The token sees exactly its projects' flags.
          const names = scoped.getFeatureToggleDefinitions().map((flag) => flag.name);
          expect(names.sort()).toEqual(projects.includes("default") ? ["apps-flag", "apps-fresh-flag"] : ["apps-fresh-flag"]);
        });
        await registered;
        const listed = await eventually(async () => {
          const body = await vexil.expectStatus("/api/admin/metrics/applications", undefined, 200, applicationListSchema);
          const found = body.applications.find((app) => app.appName === appName);
          expect(found).toBeDefined();
          return found!;
        });
        expect(listed.usage).toEqual(expect.arrayContaining(projects.map((project) => ({ project, environments: ["development"] }))));
        expect(listed.usage).toHaveLength(projects.length);
      } finally {
        scoped.destroy();
      }
    }
  });

  it("refuses bad registrations with a ValidationError", async () => {
    const client = { token: vexil.tokens.client, method: "POST" };
    await vexil.expectError("/api/client/register", { ...client, body: { instanceId: "no-app" } }, 400, "ValidationError");
    await vexil.expectError("/api/client/register", { ...client, body: { appName: "x", strategies: "default" } }, 400, "ValidationError");
    await vexil.expectError(
      "/api/frontend/client/register",
      { token: vexil.tokens.frontend, method: "POST", body: { appName: "" } },
      400,
      "ValidationError",
    );
    await vexil.expectError("/api/client/register", { token: null, method: "POST", body: { appName: "x" } }, 401, "AuthenticationRequired");
  });

  it("updates an application's details, creating it when new, and deletes it with its instances", async () => {
    await vexil.expectStatus(
      "/api/admin/metrics/applications/e2e-apps-server",
      { method: "POST", body: { description: "The server", url: "https://apps.example", color: "blue", icon: "dns" } },
      202,
    );
    expect(await application("e2e-apps-server")).toMatchObject({
      description: "The server",
      url: "https://apps.example",
      color: "blue",
      icon: "dns",
    });

    await vexil.expectStatus("/api/admin/metrics/applications/e2e-apps-manual", { method: "POST", body: { description: "by hand" } }, 202);
    expect(await application("e2e-apps-manual")).toMatchObject({ description: "by hand", instances: [], strategies: [] });

    await vexil.expectError(
      "/api/admin/metrics/applications/e2e-apps-manual",
      { method: "POST", body: { description: 5 } },
      400,
      "ValidationError",
    );
    await vexil.expectError("/api/admin/metrics/applications/e2e-apps-manual", { method: "POST", body: [1] }, 400, "ValidationError");
    await vexil.expectError(
      "/api/admin/metrics/applications/e2e-apps-manual",
      { method: "POST", body: "hello", headers: { "content-type": "text/plain" } },
      415,
      "ContentTypeerror",
    );

    await vexil.expectStatus("/api/admin/metrics/applications/e2e-apps-manual", { method: "DELETE" }, 200);
    await vexil.expectError("/api/admin/metrics/applications/e2e-apps-manual", undefined, 404, "NotFoundError");
    await vexil.expectStatus("/api/admin/metrics/applications/never-seen", { method: "DELETE" }, 200);
  });

  it("lists applications filtered by name and paged, refusing a bad page", async () => {
    const filtered = await vexil.expectStatus("/api/admin/metrics/applications?query=APPS-WEB", undefined, 200, applicationListSchema);
    expect(filtered.applications.map((app) => app.appName)).toEqual(["e2e-apps-web"]);
    const page = await vexil.expectStatus("/api/admin/metrics/applications?limit=1&offset=1", undefined, 200, applicationListSchema);
    expect(page.applications).toHaveLength(1);
    expect(page.total).toBeGreaterThanOrEqual(2);
    await vexil.expectError("/api/admin/metrics/applications?limit=0", undefined, 400, "ValidationError");
  });

  it("needs a credential to read, and UPDATE_APPLICATION to change", async () => {
    const path = "/api/admin/metrics/applications";
    await vexil.expectError(path, { token: null }, 401, "AuthenticationRequired");
    await vexil.expectError(`${path}/e2e-apps-web`, { token: null, method: "DELETE" }, 401, "AuthenticationRequired");
    await vexil.expectError(path, { token: vexil.tokens.client }, 403, "NoAccessError");

    const viewer = await signIn("apps-viewer", "Viewer");
    await vexil.expectStatus(path, viewer, 200, applicationListSchema);
    const refused = await vexil.expectError(
      `${path}/e2e-apps-web`,
      { ...viewer, method: "POST", body: { description: "no" } },
      403,
      "NoAccessError",
    );
    expect(refused.message).toContain("UPDATE_APPLICATION");
    await vexil.expectError(`${path}/e2e-apps-web`, { ...viewer, method: "DELETE" }, 403, "NoAccessError");

    const editor = await signIn("apps-editor", "Editor");
    await vexil.expectStatus(`${path}/e2e-apps-web`, { ...editor, method: "POST", body: { color: "green" } }, 202);
    expect(await application("e2e-apps-web")).toMatchObject({ color: "green" });
  });
});
