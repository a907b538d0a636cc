import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeRequestHelpers, env, signInReviewers, type Person } from "../src/change-requests.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Change requests after the proposal, end to end through the gateway, in `default` and in a
 * project created while Vexil runs: conflicts and all-or-nothing applying, scheduling, rejecting,
 * cancelling, editing and listing; then the collaboration modes of protected and private
 * projects. People act through personal access tokens.
 */
let vexil: TestSystem;
const people: Record<string, Person> = {};

beforeAll(async () => {
  vexil = await startTestSystem();
  Object.assign(people, await signInReviewers(vexil));
});
afterAll(() => vexil?.stop());

describe.each(["default", "cr-review"])("reviewing change requests in project %s", (P) => {
  const { base, api, as, propose, setState, createFlag, addStrategy, flag, get, approvedRequest, eventTypes, protectProduction } =
    changeRequestHelpers(() => vexil, people, P);

  // A flag on in production with a strategy, then production protected by two approvals.
  beforeAll(async () => {
    if (P !== "default") await vexil.createProject(P);
    await createFlag(`${P}-direct`);
    await addStrategy(`${P}-direct`);
    await json(await api(`${base}/features/${P}-direct/environments/production/on`, { method: "POST" }), 200);
    await protectProduction();
  });

  describe("conflicts and all-or-nothing applying", () => {
    it("marks a change whose strategy was changed by another request and refuses to apply until resolved", async () => {
      await json(
        await api(`${base}/environments/production/change-requests/config`, { method: "PUT", body: { changeRequestsEnabled: false } }),
        204,
      );
      await createFlag(`${P}-f`);
      const strategy = await addStrategy(`${P}-f`);
      await json(
        await api(`${base}/environments/production/change-requests/config`, { method: "PUT", body: { changeRequestsEnabled: true } }),
        204,
      );

      const { id: first } = await json(
        await propose("alice", {
          action: "updateStrategy",
          feature: `${P}-f`,
          payload: { id: strategy.id, name: "default", constraints: [], parameters: {}, title: "mine" },
        }),
        200,
      );
      await json(await setState("alice", first, { state: "In review" }), 200);
      const { id: second } = await json(
        await propose("dave", { action: "deleteStrategy", feature: `${P}-f`, payload: { id: strategy.id } }),
        200,
      );
      await json(await setState("dave", second, { state: "In review" }), 200);
      for (const who of ["bob", "carol"]) {
        await json(await setState(who, first, { state: "Approved" }), 200);
        await json(await setState(who, second, { state: "Approved" }), 200);
      }
      await json(await setState("bob", second, { state: "Applied" }), 200);

      const conflicted = await get(first);
      const change = conflicted.features[0].changes[0];
      expect(change.conflict).toBe("The strategy was deleted after this change was proposed");
      const refused = await json(await setState("bob", first, { state: "Applied" }), 409);
      expect(refused.message).toMatch(/has conflicts.*strategy was deleted/);
      expect(await get(first)).toMatchObject({ state: "Approved" });

      // Resolved by removing the change: back to review, and nothing left to conflict.
      const resolved = await json(
        await api(`${base}/change-requests/${first}/changes/${change.id}`, as("alice", { method: "DELETE" })),
        200,
      );
      expect(resolved).toMatchObject({ state: "In review", features: [] });
    });

    it("applies nothing when a change fails midway, and records why", async () => {
      await createFlag(`${P}-g`);
      await createFlag(`${P}-h`);
      const { id: doomed } = await json(
        await api("/api/admin/segments", { method: "POST", body: { name: `${P}-doomed`, constraints: [] } }),
        201,
      );
      const id = await approvedRequest([
        { action: "addStrategy", feature: `${P}-g`, payload: { name: "default", constraints: [], parameters: {} } },
        { action: "updateEnabled", feature: `${P}-g`, payload: { enabled: true } },
        { action: "addStrategy", feature: `${P}-h`, payload: { name: "default", constraints: [], parameters: {}, segments: [doomed] } },
      ]);
      // The segment goes away after the proposal: not a conflict of the request, so applying starts,
      // the first strategy is added, and the second fails.
      await json(await api(`/api/admin/segments/${doomed}`, { method: "DELETE" }), 204);
      const before = (await json(await api(`/api/admin/search/events?limit=1000`), 200)).total;

      const failed = await json(await setState("bob", id, { state: "Applied" }), 400);
      expect(failed.message).toMatch(new RegExp(String(doomed)));
      const g = env(await flag(`${P}-g`));
      expect(g).toMatchObject({ enabled: false, strategies: [] });
      expect(env(await flag(`${P}-h`)).strategies).toEqual([]);
      expect((await json(await api(`/api/admin/search/events?limit=1000`), 200)).total).toBe(before);
      const after = await get(id);
      expect(after).toMatchObject({ state: "Approved", failureReason: expect.stringContaining(String(doomed)) });
    });
  });

  describe("scheduling", () => {
    it("refuses a time in the past and applies at the scheduled time", async () => {
      await createFlag(`${P}-s`);
      const id = await approvedRequest([
        { action: "addStrategy", feature: `${P}-s`, payload: { name: "default", constraints: [], parameters: {} } },
        { action: "updateEnabled", feature: `${P}-s`, payload: { enabled: true } },
      ]);
      await json(await setState("bob", id, { state: "Scheduled", scheduledAt: "2001-01-01T00:00:00.000Z" }), 400);
      await json(await setState("bob", id, { state: "Scheduled" }), 400);
      // Far enough ahead that the request setting it is answered first, even on a loaded machine.
      const at = new Date(Date.now() + 5000).toISOString();
      const scheduled = await json(await setState("bob", id, { state: "Scheduled", scheduledAt: at }), 200);
      expect(scheduled).toMatchObject({ state: "Scheduled", schedule: { scheduledAt: at, status: "pending" } });
      expect(env(await flag(`${P}-s`)).enabled).toBe(false);
      await expect.poll(async () => (await get(id)).state, { timeout: 60_000, interval: 200 }).toBe("Applied");
      expect(env(await flag(`${P}-s`)).enabled).toBe(true);
      expect(await eventTypes(`project=${P}&type=change-request-scheduled`)).toHaveLength(1);
      expect(await eventTypes(`project=${P}&type=change-request-scheduled-application-success`)).toHaveLength(1);
    });
  });

  describe("rejecting, cancelling, editing and listing", () => {
    it("rejects: a rejected request is final and cannot be applied", async () => {
      const { id } = await json(
        await propose("alice", { action: "updateEnabled", feature: `${P}-direct`, payload: { enabled: false } }),
        200,
      );
      await json(await setState("alice", id, { state: "In review" }), 200);
      await json(await setState("alice", id, { state: "Rejected" }), 403);
      const rejected = await json(
        await api(`${base}/change-requests/${id}/reject`, as("bob", { method: "POST", body: { comment: "not now" } })),
        200,
      );
      expect(rejected).toMatchObject({
        state: "Rejected",
        rejections: [{ createdBy: { username: "bob" } }],
        comments: [expect.objectContaining({ text: "not now" })],
      });
      const refused = await json(await setState("bob", id, { state: "Applied" }), 409);
      expect(refused.message).toMatch(/Rejected and cannot be applied/);
      await json(await setState("carol", id, { state: "Approved" }), 409);
      expect(env(await flag(`${P}-direct`)).enabled).toBe(true);
      expect(await eventTypes(`project=${P}&type=change-request-rejected`)).toHaveLength(1);
    });

    it("cancels: only the creator, and a cancelled request is final", async () => {
      const { id } = await json(
        await propose("alice", { action: "updateEnabled", feature: `${P}-direct`, payload: { enabled: false } }),
        200,
      );
      await json(await setState("bob", id, { state: "Cancelled" }), 403);
      const cancelled = await json(await api(`${base}/change-requests/${id}/cancel`, as("alice", { method: "POST", body: {} })), 200);
      expect(cancelled.state).toBe("Cancelled");
      await json(await setState("alice", id, { state: "In review" }), 409);
      expect(await eventTypes(`project=${P}&type=change-request-cancelled`)).toHaveLength(1);
    });

    it("comments, retitles, removes a change (back to review) and lists by state, creator and search", async () => {
      const id = await approvedRequest([
        { action: "updateEnabled", feature: `${P}-direct`, payload: { enabled: false } },
        { action: "patchVariant", feature: `${P}-direct`, payload: { variants: [] } },
      ]);
      const comment = await json(
        await api(`${base}/change-requests/${id}/comments`, as("carol", { method: "POST", body: { text: "looks fine" } })),
        201,
      );
      expect(comment).toMatchObject({ text: "looks fine", createdBy: { username: "carol" } });
      await json(await api(`${base}/change-requests/${id}/comments`, as("carol", { method: "POST", body: { text: " " } })), 400);
      await json(await api(`${base}/change-requests/${id}/title`, as("bob", { method: "PUT", body: { title: "Turn it off" } })), 403);
      expect(
        (await json(await api(`${base}/change-requests/${id}/title`, as("alice", { method: "PUT", body: { title: "Turn it off" } })), 200))
          .title,
      ).toBe("Turn it off");

      const current = await get(id);
      const variantChange = current.features[0].changes.find((c: { action: string }) => c.action === "patchVariant");
      await json(await api(`${base}/change-requests/${id}/changes/999999`, as("alice", { method: "DELETE" })), 404);
      const edited = await json(
        await api(`${base}/change-requests/${id}/changes/${variantChange.id}`, as("alice", { method: "DELETE" })),
        200,
      );
      expect(edited).toMatchObject({ state: "In review", approvals: [] });
      expect(edited.features[0].changes.map((c: { action: string }) => c.action)).toEqual(["updateEnabled"]);

      const inReview = await json(await api(`${base}/change-requests?state=In%20review`), 200);
      expect(inReview.map((r: { id: number }) => r.id)).toContain(id);
      expect(inReview.every((r: { state: string }) => r.state === "In review")).toBe(true);
      const byAlice = await json(await api(`${base}/change-requests?createdBy=${people.alice!.id}`), 200);
      expect(byAlice.length).toBeGreaterThanOrEqual(4);
      expect(byAlice.every((r: { createdBy: { id: number } }) => r.createdBy.id === people.alice!.id)).toBe(true);
      const open = await json(await api(`${base}/change-requests/open`, as("alice")), 200);
      expect(open.map((r: { id: number }) => r.id)).toContain(id);
      const search = await json(await api(`/api/admin/search/change-requests?project=${P}&state=Applied`), 200);
      expect(search.total).toBeGreaterThanOrEqual(1);
      expect(search.changeRequests.every((r: { state: string }) => r.state === "Applied")).toBe(true);
      await json(await api(`/api/admin/search/change-requests?state=Whatever`), 400);

      await json(await setState("alice", id, { state: "Cancelled" }), 200);
    });

    it("hides others' drafts from the project list", async () => {
      const { id } = await json(
        await propose("carol", { action: "updateEnabled", feature: `${P}-direct`, payload: { enabled: false } }),
        200,
      );
      const seenByAlice = await json(await api(`${base}/change-requests`, as("alice")), 200);
      expect(seenByAlice.map((r: { id: number }) => r.id)).not.toContain(id);
      const seenByCarol = await json(await api(`${base}/change-requests`, as("carol")), 200);
      expect(seenByCarol.map((r: { id: number }) => r.id)).toContain(id);
      await json(await api(`${base}/change-requests/${id}`, as("carol", { method: "DELETE" })), 204);
    });
  });
});

describe("collaboration modes", () => {
  const { api, as, propose, createFlag } = changeRequestHelpers(() => vexil, people, "default");

  it("protected: only members submit change requests", async () => {
    await json(await api("/api/admin/projects", { method: "POST", body: { id: "guarded", name: "Guarded", mode: "protected" } }), 201);
    await createFlag("guarded-flag", "guarded");
    await json(
      await api(`/api/admin/projects/guarded/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true },
      }),
      204,
    );
    const change = { action: "updateEnabled", feature: "guarded-flag", payload: { enabled: true } };
    const refused = await json(await propose("dave", change, "production", "guarded"), 403);
    expect(refused.message).toBe("Project guarded is protected: only its members may submit change requests");
    await json(
      await api("/api/admin/projects/guarded/access", { method: "POST", body: { roles: [5], users: [{ id: people.dave!.id }] } }),
      200,
    );
    await json(await propose("dave", change, "production", "guarded"), 200);
    const access = await json(await api("/api/admin/projects/guarded/access"), 200);
    expect(access.users).toEqual([expect.objectContaining({ id: people.dave!.id, roles: [5] })]);
    await json(
      await api("/api/admin/projects/guarded/access", { method: "POST", body: { roles: [99], users: [{ id: people.dave!.id }] } }),
      400,
    );
  });

  it("private: non-members do not see the project or its flags", async () => {
    await json(await api("/api/admin/projects", { method: "POST", body: { id: "secret", name: "Secret", mode: "private" } }), 201);
    await createFlag("secret-flag", "secret");
    await json(await api("/api/admin/projects/secret", as("dave")), 404);
    await json(await api("/api/admin/projects/secret/features/secret-flag", as("dave")), 404);
    const projects = await json(await api("/api/admin/projects", as("dave")), 200);
    expect(projects.projects.map((p: { id: string }) => p.id)).not.toContain("secret");
    const features = await json(await api("/api/admin/features", as("dave")), 200);
    expect(features.features.map((f: { name: string }) => f.name)).not.toContain("secret-flag");

    await json(
      await api("/api/admin/projects/secret/access", { method: "POST", body: { roles: [5], users: [{ id: people.dave!.id }] } }),
      200,
    );
    await json(await api("/api/admin/projects/secret", as("dave")), 200);
    const visible = await json(await api("/api/admin/features", as("dave")), 200);
    expect(visible.features.map((f: { name: string }) => f.name)).toContain("secret-flag");
    await json(await api(`/api/admin/projects/secret/users/${people.dave!.id}/roles`, { method: "DELETE" }), 200);
    await json(await api("/api/admin/projects/secret/features/secret-flag", as("dave")), 404);
  });
});
