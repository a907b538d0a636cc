/**
 * `GET /api/admin/event-stream`: the event log as server-sent events, for pages that show changes
 * as they happen. A change made by another caller reaches an open stream, in the default project
 * and one created at run time, through the single process and through the cluster's proxy;
 * callers see only what the event log lets them see. Delays are printed, not asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainEvents, openEventStream, type OpenEventStream } from "../src/event-stream.js";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";

const streamPath = "/api/admin/event-stream";

async function createFlag(vexil: TestSystem, project: string, name: string): Promise<void> {
  await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }, 201);
}

/** Switches the flag on in development and returns when the API answered. */
async function switchOn(vexil: TestSystem, project: string, flag: string): Promise<number> {
  await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
  return performance.now();
}

async function connected(vexil: TestSystem, query = "", headers: Record<string, string> = {}): Promise<OpenEventStream> {
  const stream = await openEventStream(`${vexil.url}${streamPath}${query}`, headers);
  expect(stream.status).toBe(200);
  expect(stream.contentType).toBe("text/event-stream");
  await expect.poll(() => stream.messages[0]?.event, { timeout: 30_000 }).toBe("connected");
  return stream;
}

/** Waits for the event of a flag switched on and prints how long after the API answered it came. */
async function seesSwitchOn(stream: OpenEventStream, project: string, flag: string, answeredAt: number, where: string) {
  await expect
    .poll(() => domainEvents(stream).find((e) => e.type === "feature-environment-enabled" && e.featureName === flag), { timeout: 30_000 })
    .toMatchObject({ project, featureName: flag, environment: "development", createdBy: expect.any(String) });
  console.log(`${where}: the stream showed ${flag} switched on ${(performance.now() - answeredAt).toFixed(0)} ms after the API answered`);
}

describe("the admin event stream (single process)", () => {
  let vexil: TestSystem;
  const streams: OpenEventStream[] = [];
  const open = async (query = "", headers: Record<string, string> = {}) => {
    const stream = await connected(vexil, query, { authorization: vexil.tokens.admin, ...headers });
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    vexil = await startTestSystem();
    await vexil.createProject("live-ops");
  }, 120_000);
  afterAll(async () => {
    for (const stream of streams) await stream.close();
    await vexil?.stop();
  });

  it.each(["default", "live-ops"])("shows a change another caller makes in project %s, and narrows to one project", async (project) => {
    const everything = await open();
    const onlyThis = await open(`?project=${project}`);
    const elsewhere = project === "default" ? "live-ops" : "default";
    await createFlag(vexil, elsewhere, `elsewhere-${project}`);
    await createFlag(vexil, project, `live-${project}`);
    const answeredAt = await switchOn(vexil, project, `live-${project}`);
    await seesSwitchOn(everything, project, `live-${project}`, answeredAt, project);
    await seesSwitchOn(onlyThis, project, `live-${project}`, answeredAt, `${project}, narrowed`);
    expect(domainEvents(onlyThis).every((e) => e.project === project)).toBe(true);
    expect(domainEvents(everything).some((e) => e.featureName === `elsewhere-${project}`)).toBe(true);
    // Each event carries its id, as the event log numbers it.
    const created = everything.messages.find((m) => m.data?.type === "feature-created" && m.data.featureName === `live-${project}`)!;
    expect(created.id).toBe(String(created.data.id));
  });

  it("resumes from Last-Event-ID with what a reconnect missed", async () => {
    const first = await open();
    await createFlag(vexil, "live-ops", "before-the-drop");
    await expect.poll(() => domainEvents(first).some((e) => e.featureName === "before-the-drop"), { timeout: 30_000 }).toBe(true);
    const lastSeen = first.messages.filter((m) => m.id !== undefined).at(-1)!.id!;
    await first.close();
    await createFlag(vexil, "live-ops", "while-away");
    const resumed = await open("", { "last-event-id": lastSeen });
    expect(resumed.messages[0]!.data).toMatchObject({ resumed: true });
    await expect.poll(() => [...new Set(domainEvents(resumed).map((e) => e.featureName))], { timeout: 30_000 }).toEqual(["while-away"]);
  });

  it("refuses callers without access, and keeps private projects' events from non-members", async () => {
    await vexil.expectError(streamPath, { token: null }, 401, "AuthenticationRequired");
    await vexil.expectError(streamPath, { token: vexil.tokens.client }, 403, "NoAccessError");
    await vexil.expectError(`${streamPath}?project=`, {}, 400, "ValidationError");
    await vexil.expectError(`${streamPath}?project=no-such-project`, {}, 404, "NotFoundError");

    await vexil.createProject("vault", { mode: "private" });
    const viewer = await vexil.createPerson({ username: "stream-viewer", rootRole: "Viewer" });
    await vexil.expectError(`${streamPath}?project=vault`, { token: viewer.token }, 404, "NotFoundError");
    const viewerStream = await open("", { authorization: viewer.token });
    const adminStream = await open();
    await createFlag(vexil, "vault", "secret-flag");
    await createFlag(vexil, "default", "public-flag");
    await expect.poll(() => domainEvents(viewerStream).some((e) => e.featureName === "public-flag"), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => domainEvents(adminStream).some((e) => e.featureName === "public-flag"), { timeout: 30_000 }).toBe(true);
    // Commit order: the private flag came first, so the viewer's stream has passed it by now.
    expect(domainEvents(adminStream).some((e) => e.featureName === "secret-flag")).toBe(true);
    expect(domainEvents(viewerStream).some((e) => e.project === "vault")).toBe(false);
  });

  it("ends a stream once its session or token ends, saying so, and refuses the reconnect", async () => {
    const password = "Str0ng-enough!";
    const user = await vexil.createPerson({ username: "stream-leaver", rootRole: "Editor" });
    const signIn = async () => {
      const res = await vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username: "stream-leaver", password } });
      expect(res.status).toBe(200);
      return res.headers.get("set-cookie")!.split(";")[0]!;
    };
    const asBrowser = (cookie: string) => ({ cookie, authorization: "" });
    const endsSaying = async (stream: OpenEventStream, why: string) => {
      const startedAt = performance.now();
      await stream.ended;
      expect(stream.messages.at(-1)?.event, why).toBe("ended");
      console.log(`${why}: the stream ended ${(performance.now() - startedAt).toFixed(0)} ms later`);
    };
    const [here, elsewhere] = [await signIn(), await signIn()];
    const signedOut = await open("", asBrowser(here));
    const stays = await open("?project=live-ops", asBrowser(elsewhere));

    // Signing out in one browser ends that session's stream; the other session's stream goes on.
    const signOut = await vexil.api("/logout", { method: "POST", token: null, headers: { cookie: here }, redirect: "manual" });
    expect(signOut.status).toBe(302);
    await endsSaying(signedOut, "signed out");
    await vexil.expectError(streamPath, { token: null, headers: { cookie: here } }, 401, "AuthenticationRequired");
    await createFlag(vexil, "live-ops", "after-sign-out");
    await expect.poll(() => domainEvents(stays).some((e) => e.featureName === "after-sign-out"), { timeout: 30_000 }).toBe(true);

    // A deleted personal access token ends the stream opened with it, as deleting the user ends the session's.
    const pat = await vexil.expectStatus(
      "/api/admin/user/tokens",
      {
        method: "POST",
        token: null,
        headers: { cookie: elsewhere },
        body: { description: "stream", expiresAt: "2099-01-01T00:00:00.000Z" },
      },
      201,
    );
    const withPat = await open("", { authorization: pat.secret });
    await vexil.expectStatus(`/api/admin/user/tokens/${pat.id}`, { method: "DELETE", token: null, headers: { cookie: elsewhere } }, 200);
    await endsSaying(withPat, "personal access token deleted");
    await vexil.expectStatus(`/api/admin/user-admin/${user.id}`, { method: "DELETE" }, 200);
    await endsSaying(stays, "user deleted");
    await vexil.expectError(streamPath, { token: null, headers: { cookie: elsewhere } }, 401, "AuthenticationRequired");
  });

  it("ends open streams when Vexil stops", async () => {
    const stream = await open();
    const stopped = vexil.restart();
    await stream.ended;
    await stopped;
    const again = await open();
    expect(again.messages[0]!.event).toBe("connected");
  });
});

describe("the admin event stream through the cluster's gateway", () => {
  let vexil: TestSystem | undefined;

  beforeAll(async () => {
    if (await clusterAvailable("the cluster event stream test")) vexil = await startTestSystem({ mode: "cluster" });
  }, 180_000);
  afterAll(async () => {
    await vexil?.stop();
  });

  it("passes each event through the proxy as it comes, unbuffered", async ({ skip }) => {
    if (!vexil) return skip();
    const project = await vexil.createProject("cluster-live");
    const stream = await connected(vexil, "", { authorization: vexil.tokens.admin });
    try {
      for (const target of ["default", project]) {
        await createFlag(vexil, target, `proxied-${target}`);
        const answeredAt = await switchOn(vexil, target, `proxied-${target}`);
        await seesSwitchOn(stream, target, `proxied-${target}`, answeredAt, `cluster, ${target}`);
      }
    } finally {
      await stream.close();
    }
  });
});
