import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";
import { openEventStream } from "../src/event-stream.js";

/**
 * The event log keeps private projects private: a Viewer who is no member of one gets 404 on the
 * project and reads none of its events, descriptions included, on any listing of the log, the
 * search or the stream; admins and members read them all.
 */
let vexil: TestSystem;
let viewer: { id: number; token: string };
const secret = "The vault opens at midnight";

beforeAll(async () => {
  vexil = await startTestSystem();
  await vexil.createProject("vault", { mode: "private", description: secret });
  await json(
    await vexil.api("/api/admin/projects/vault/features", { method: "POST", body: { name: "vault-flag", description: secret } }),
    201,
  );
  await json(await vexil.api("/api/admin/projects/default/features", { method: "POST", body: { name: "open-flag" } }), 201);
  viewer = await vexil.createPerson({ username: "viewer", rootRole: "Viewer" });
}, 240_000);
afterAll(() => vexil?.stop());

/** Every listing of the event log a caller can ask for, with the events each gave. */
async function listings(token: string) {
  const read = async (path: string) => {
    const body = await json(await vexil.api(path, { token }), 200);
    return { path, text: JSON.stringify(body), events: body.events as { project: string | null }[], total: body.totalEvents ?? body.total };
  };
  return Promise.all([
    read("/api/admin/events"),
    read("/api/admin/events?project=vault"),
    read("/api/admin/events?feature=vault-flag"),
    read("/api/admin/events/vault-flag"),
    read("/api/admin/search/events"),
    read("/api/admin/search/events?project=vault"),
    read("/api/admin/search/events?feature=vault-flag&type=feature-created"),
  ]);
}

describe("the event log of a private project", () => {
  it("shows a non-member Viewer none of its events anywhere, and the rest as before", async () => {
    await json(await vexil.api("/api/admin/projects/vault", { token: viewer.token }), 404);
    for (const { path, text, events, total } of await listings(viewer.token)) {
      expect(text, path).not.toContain(secret);
      expect(
        events.filter((e) => e.project === "vault"),
        path,
      ).toEqual([]);
      expect(events.length, path).toBe(total);
    }
    const all = await json(await vexil.api("/api/admin/events", { token: viewer.token }), 200);
    expect(all.events.map((e: { featureName: string | null }) => e.featureName)).toContain("open-flag");

    // The stream: its backlog and what happens while it is open.
    const stream = await openEventStream(`${vexil.url}/api/admin/event-stream`, { authorization: viewer.token, "last-event-id": "0" });
    expect(stream.status).toBe(200);
    await json(
      await vexil.api("/api/admin/projects/vault/features", { method: "POST", body: { name: "vault-later", description: secret } }),
      201,
    );
    await json(await vexil.api("/api/admin/projects/default/features", { method: "POST", body: { name: "open-later" } }), 201);
    await expect.poll(() => stream.messages.some((m) => m.data?.featureName === "open-later"), { timeout: 10_000 }).toBe(true);
    await stream.close();
    expect(JSON.stringify(stream.messages)).not.toContain("vault");
    await json(await vexil.api("/api/admin/event-stream?project=vault", { token: viewer.token }), 404);
  });

  it("shows them to admins and, once added, to members", async () => {
    await json(
      await vexil.api("/api/admin/projects/vault/access", { method: "POST", body: { roles: [5], users: [{ id: viewer.id }] } }),
      200,
    );
    const asAdmin = await listings(vexil.tokens.admin);
    for (const { path, events } of asAdmin)
      expect(
        events.some((e) => e.project === "vault"),
        path,
      ).toBe(true);
    const asMember = await listings(viewer.token);
    for (const [i, { path, text, total }] of asMember.entries()) {
      expect(text, path).toContain(secret);
      expect(total, path).toBe(asAdmin[i]!.total);
    }
  });
});
