import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson as json, startTestSystem, type ApiInit, type TestSystem } from "../src/harness.js";

/**
 * Change requests end to end through the gateway: configuration, the guard on direct changes, the
 * 11 actions proposed and applied, every move and refusal, conflicts, all-or-nothing applying,
 * scheduling and collaboration modes. People act through personal access tokens.
 */
let vexil: TestSystem;
const people: Record<string, { id: number; token: string }> = {};
const P = "cr";
const base = `/api/admin/projects/${P}`;

beforeAll(async () => {
  vexil = await startTestSystem();
  for (const username of ["alice", "bob", "carol", "dave"]) {
    people[username] = await vexil.createPerson({ username, rootRole: "Editor" });
  }
  await json(await api("/api/admin/projects", { method: "POST", body: { id: P, name: "Change requests" } }), 201);
});
afterAll(() => vexil?.stop());

const api = (path: string, init?: ApiInit) => vexil.api(path, init);
const as = (who: string, init: ApiInit = {}): ApiInit => ({ ...init, token: people[who]!.token });

async function createFlag(name: string, project = P) {
  await json(await api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }), 201);
}
async function addStrategy(flag: string, body: Record<string, unknown> = { name: "default" }, environment = "production") {
  return json(await api(`${base}/features/${flag}/environments/${environment}/strategies`, { method: "POST", body }), 200);
}
const flag = async (name: string) => json(await api(`${base}/features/${name}`), 200);
const env = (feature: { environments: { name: string }[] }, name = "production") =>
  feature.environments.find((e) => e.name === name) as unknown as {
    enabled: boolean;
    strategies: Record<string, unknown>[];
    variants: Record<string, unknown>[];
  };

const propose = (who: string, changes: unknown, environment = "production", project = P) =>
  api(`/api/admin/projects/${project}/environments/${environment}/change-requests`, as(who, { method: "POST", body: changes }));
const setState = (who: string, id: number, body: Record<string, unknown>, project = P) =>
  api(`/api/admin/projects/${project}/change-requests/${id}/state`, as(who, { method: "PUT", body }));
const get = async (id: number, who = "alice") => json(await api(`${base}/change-requests/${id}`, as(who)), 200);

/** A request by alice, sent to review and approved by bob and carol (two approvals required). */
async function approvedRequest(changes: unknown): Promise<number> {
  const { id } = await json(await propose("alice", changes), 200);
  await json(await setState("alice", id, { state: "In review" }), 200);
  await json(await api(`${base}/change-requests/${id}/approve`, as("bob", { method: "POST", body: {} })), 200);
  const approved = await json(await api(`${base}/change-requests/${id}/approve`, as("carol", { method: "POST", body: {} })), 200);
  expect(approved.state).toBe("Approved");
  return id;
}

async function eventTypes(query: string): Promise<string[]> {
  const { events } = await json(await api(`/api/admin/search/events?${query}&limit=100`), 200);
  return events.map((e: { type: string }) => e.type);
}

let segmentToUpdate: number;
let segmentToDelete: number;
let strategyIds: { s1: string; s2: string; s3: string };

describe("configuration and the guard on direct changes", () => {
  beforeAll(async () => {
    for (const name of ["cr-a", "cr-b", "cr-c", "cr-d", "cr-e", "cr-direct"]) await createFlag(name);
    const [s1, s2, s3] = [
      await addStrategy("cr-b"),
      await addStrategy("cr-b", { name: "userWithId", parameters: { userIds: "1" } }),
      await addStrategy("cr-b"),
    ];
    strategyIds = { s1: s1.id, s2: s2.id, s3: s3.id };
    await json(await api(`${base}/features/cr-e/dependencies`, { method: "POST", body: { feature: "cr-a" } }), 200);
    await addStrategy("cr-direct");
    await json(await api(`${base}/features/cr-direct/environments/production/on`, { method: "POST" }), 200);
    segmentToUpdate = (await json(await api("/api/admin/segments", { method: "POST", body: { name: "cr-beta", constraints: [] } }), 201))
      .id;
    segmentToDelete = (await json(await api("/api/admin/segments", { method: "POST", body: { name: "cr-gone", constraints: [] } }), 201))
      .id;
  });

  it("reads every environment as off, then on after PUT, with Unleash's field names", async () => {
    const before = await json(await api(`${base}/change-requests/config`), 200);
    expect(before).toContainEqual({ environment: "production", type: "production", changeRequestEnabled: false, requiredApprovals: 1 });
    await json(
      await api(`${base}/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true, requiredApprovals: 2 },
      }),
      204,
    );
    const after = await json(await api(`${base}/change-requests/config`), 200);
    expect(after).toContainEqual({ environment: "production", type: "production", changeRequestEnabled: true, requiredApprovals: 2 });
    expect(after).toContainEqual(expect.objectContaining({ environment: "development", changeRequestEnabled: false }));
    expect(await eventTypes(`project=${P}&type=change-request-configuration-updated`)).toHaveLength(1);
  });

  it("refuses bad configuration", async () => {
    const path = `${base}/environments/production/change-requests/config`;
    await json(await api(path, { method: "PUT", body: { changeRequestsEnabled: true, requiredApprovals: 0 } }), 400);
    await json(await api(path, { method: "PUT", body: { requiredApprovals: 2 } }), 400);
    await json(
      await api(`${base}/environments/nowhere/change-requests/config`, { method: "PUT", body: { changeRequestsEnabled: true } }),
      404,
    );
    expect(await json(await api(`${base}/change-requests/config`), 200)).toContainEqual(
      expect.objectContaining({ environment: "production", requiredApprovals: 2 }),
    );
  });

  it("refuses direct changes to the protected environment with a message pointing at change requests", async () => {
    const refusals = [
      api(`${base}/features/cr-a/environments/production/on`, { method: "POST" }),
      api(`${base}/features/cr-direct/environments/production/off`, { method: "POST" }),
      api(`${base}/features/cr-a/environments/production/strategies`, { method: "POST", body: { name: "default" } }),
      api(`${base}/features/cr-b/environments/production/strategies/${strategyIds.s1}`, { method: "DELETE" }),
      api(`${base}/features/cr-b/environments/production/variants`, {
        method: "PUT",
        body: [{ name: "a", weight: 1000, weightType: "variable", stickiness: "default" }],
      }),
      api(`${base}/features/cr-direct`, { method: "DELETE" }),
    ];
    for (const res of await Promise.all(refusals)) {
      const body = await json(res, 403);
      expect(body.name).toBe("NoAccessError");
      expect(body.message).toMatch(
        /Change requests are enabled for environment production in project cr: propose this change in a change request/,
      );
    }
    expect(env(await flag("cr-direct")).enabled).toBe(true);
    expect(env(await flag("cr-b")).strategies).toHaveLength(3);
    // Other environments stay directly changeable.
    await json(await api(`${base}/features/cr-a/environments/development/on`, { method: "POST" }), 200);
  });
});

describe("proposing changes", () => {
  it("refuses a bad payload with 400 and leaves the draft as it was", async () => {
    const draft = await json(await propose("dave", { action: "updateEnabled", feature: "cr-a", payload: { enabled: true } }), 200);
    expect(draft).toMatchObject({
      state: "Draft",
      minApprovals: 2,
      environment: "production",
      project: P,
      createdBy: { id: people.dave!.id, username: "dave" },
    });
    const bad: [unknown, RegExp][] = [
      [
        { action: "addStrategy", feature: "cr-a", payload: { name: "no-such-strategy", constraints: [], parameters: {} } },
        /no-such-strategy/,
      ],
      [
        {
          action: "addStrategy",
          feature: "cr-a",
          payload: { name: "default", constraints: [{ contextName: "appName", operator: "NUM_GT", value: "x" }], parameters: {} },
        },
        /body\.1\.payload/,
      ],
      [{ action: "addStrategy", feature: "cr-a", payload: { name: "default", constraints: [], parameters: {}, segments: [9999] } }, /9999/],
      [{ action: "deleteStrategy", feature: "cr-b", payload: { id: "missing" } }, /strategy missing does not exist/],
      [{ action: "updateEnabled", feature: "nope", payload: { enabled: true } }, /feature nope does not exist in project cr/],
      [
        {
          action: "patchVariant",
          feature: "cr-a",
          payload: { variants: [{ name: "x", weight: 1000, weightType: "fix", stickiness: "default" }] },
        },
        /variable/,
      ],
      // The same range checks as a direct strategy write: applying must never store what a write refuses.
      ...["150", "-5", "abc", "1e309"].map((rollout): [unknown, RegExp] => [
        { action: "addStrategy", feature: "cr-a", payload: { name: "flexibleRollout", constraints: [], parameters: { rollout } } },
        /whole number from 0 to 100/,
      ]),
      [
        {
          action: "updateStrategy",
          feature: "cr-b",
          payload: { id: strategyIds.s1, name: "gradualRolloutRandom", parameters: { percentage: "101" } },
        },
        /whole number from 0 to 100/,
      ],
      [{ action: "addStrategy", feature: "cr-a", payload: { name: "default", constraints: [], parameters: {}, sortOrder: 1.5 } }, /whole/],
      [{ action: "reorderStrategy", feature: "cr-b", payload: [{ id: strategyIds.s1, sortOrder: 0.5 }] }, /whole/],
      [{ action: "deleteSegment", payload: { id: 9999 } }, /no segment exists/],
      [{ action: "addDependency", feature: "cr-d", payload: { feature: "cr-d" } }, /cannot depend on itself/],
      [{ action: "updateEnabled", feature: "cr-a" }, /payload/],
      [{ action: "renameFeature", feature: "cr-a", payload: {} }, /action/],
    ];
    for (const [change, message] of bad) {
      const body = await json(await propose("dave", [{ action: "archiveFeature", feature: "cr-c" }, change]), 400);
      expect(body.name).toBe("ValidationError");
      expect(body.message + JSON.stringify(body.details ?? [])).toMatch(message);
    }
    const after = await get(draft.id, "dave");
    expect(after.features.map((f: { name: string }) => f.name)).toEqual(["cr-a"]);
    await json(await api(`${base}/change-requests/${draft.id}`, as("dave", { method: "DELETE" })), 204);
    await json(await api(`${base}/change-requests/${draft.id}`, as("dave")), 404);
    expect(await eventTypes(`project=${P}&type=change-request-discarded`)).toHaveLength(1);
  });

  it("refuses proposals where change requests are off", async () => {
    const body = await json(
      await propose("alice", { action: "updateEnabled", feature: "cr-a", payload: { enabled: true } }, "development"),
      400,
    );
    expect(body.message).toMatch(/not enabled for environment development/);
  });
});

describe("the 11 actions, proposed, reviewed and applied", () => {
  let id: number;
  it("appends one change or many to the caller's draft, combining changes of the same kind", async () => {
    const first = await json(await propose("alice", { action: "updateEnabled", feature: "cr-a", payload: { enabled: false } }), 200);
    id = first.id;
    expect(first).toMatchObject({ state: "Draft", title: `Change request #${id}` });
    const all = await json(
      await propose("alice", [
        { action: "updateEnabled", feature: "cr-a", payload: { enabled: true } },
        {
          action: "addStrategy",
          feature: "cr-b",
          payload: {
            name: "flexibleRollout",
            constraints: [],
            parameters: { rollout: "50", stickiness: "default" },
            segments: [segmentToUpdate],
          },
        },
        {
          action: "updateStrategy",
          feature: "cr-b",
          payload: {
            id: strategyIds.s1,
            name: "default",
            constraints: [{ contextName: "userId", operator: "IN", values: ["7"] }],
            parameters: {},
          },
        },
        { action: "deleteStrategy", feature: "cr-b", payload: { id: strategyIds.s2 } },
        {
          action: "reorderStrategy",
          feature: "cr-b",
          payload: [
            { id: strategyIds.s3, sortOrder: 0 },
            { id: strategyIds.s1, sortOrder: 1 },
          ],
        },
        {
          action: "patchVariant",
          feature: "cr-b",
          payload: {
            variants: [
              { name: "blue", weight: 500, weightType: "variable", stickiness: "default" },
              { name: "red", weight: 500, weightType: "variable", stickiness: "default" },
            ],
          },
        },
        { action: "archiveFeature", feature: "cr-c" },
        { action: "addDependency", feature: "cr-d", payload: { feature: "cr-a", enabled: true } },
        { action: "deleteDependency", feature: "cr-e" },
        {
          action: "updateSegment",
          payload: { id: segmentToUpdate, name: "cr-beta", constraints: [{ contextName: "userId", operator: "IN", values: ["1", "2"] }] },
        },
        { action: "deleteSegment", payload: { id: segmentToDelete } },
      ]),
      200,
    );
    expect(all.id).toBe(id);
    const a = all.features.find((f: { name: string }) => f.name === "cr-a");
    expect(a.changes).toEqual([
      expect.objectContaining({ action: "updateEnabled", payload: { enabled: true }, createdBy: { username: "alice" } }),
    ]);
    // Enabling a flag without strategies adds the environment's default strategy when applied.
    expect(a.defaultChange).toMatchObject({
      action: "addStrategy",
      payload: { name: "flexibleRollout", parameters: { rollout: "100", groupId: "cr-a" } },
    });
    const actions = [...all.features.flatMap((f: { changes: { action: string }[] }) => f.changes), ...all.segments].map(
      (c: { action: string }) => c.action,
    );
    expect(actions.sort()).toEqual(
      [
        "addDependency",
        "addStrategy",
        "archiveFeature",
        "deleteDependency",
        "deleteSegment",
        "deleteStrategy",
        "patchVariant",
        "reorderStrategy",
        "updateEnabled",
        "updateSegment",
        "updateStrategy",
      ].sort(),
    );
    expect(all.segments).toContainEqual(expect.objectContaining({ action: "deleteSegment", name: "cr-gone" }));
    expect(await eventTypes(`project=${P}&type=change-request-created`)).toHaveLength(2);
  });

  it("moves through review: self-approval and too few approvals are refused", async () => {
    await json(await setState("bob", id, { state: "In review" }), 403);
    const inReview = await json(await setState("alice", id, { state: "In review", comment: "please review" }), 200);
    expect(inReview).toMatchObject({
      state: "In review",
      comments: [expect.objectContaining({ text: "please review", createdBy: { username: "alice" } })],
    });

    const self = await json(await setState("alice", id, { state: "Approved" }), 403);
    expect(self).toMatchObject({ name: "NoAccessError", message: "You cannot approve your own change request" });

    const once = await json(await setState("bob", id, { state: "Approved" }), 200);
    expect(once).toMatchObject({ state: "In review", approvals: [{ createdBy: { id: people.bob!.id, username: "bob" } }] });
    await json(await setState("bob", id, { state: "Approved" }), 409);
    const tooFew = await json(await api(`${base}/change-requests/${id}/apply`, as("bob", { method: "POST", body: {} })), 409);
    expect(tooFew.message).toMatch(/In review and cannot be applied/);

    const approved = await json(await api(`${base}/change-requests/${id}/approve`, as("carol", { method: "POST", body: {} })), 200);
    expect(approved).toMatchObject({ state: "Approved", minApprovals: 2 });
    expect(approved.approvals).toHaveLength(2);
    const types = await eventTypes(`project=${P}&type=change-request-approval-added`);
    expect(types).toHaveLength(2);
    expect(await eventTypes(`project=${P}&type=change-request-approved`)).toHaveLength(1);
    expect(await eventTypes(`project=${P}&type=change-request-sent-to-review`)).toHaveLength(1);
  });

  it("applies every change through the flag model, with the same domain events", async () => {
    const applied = await json(await setState("bob", id, { state: "Applied" }), 200);
    expect(applied).toMatchObject({ state: "Applied" });

    const a = env(await flag("cr-a"));
    expect(a.enabled).toBe(true);
    expect(a.strategies).toEqual([
      expect.objectContaining({ name: "flexibleRollout", parameters: expect.objectContaining({ groupId: "cr-a" }) }),
    ]);
    const b = env(await flag("cr-b"));
    expect(b.strategies.map((s) => s.id)).toEqual([strategyIds.s3, strategyIds.s1, expect.any(String)]);
    expect(b.strategies.find((s) => s.id === strategyIds.s1)).toMatchObject({ constraints: [expect.objectContaining({ values: ["7"] })] });
    expect(b.strategies[2]).toMatchObject({ name: "flexibleRollout", segments: [segmentToUpdate] });
    expect(b.variants.map((v) => v.name)).toEqual(["blue", "red"]);
    await json(await api(`${base}/features/cr-c`), 404);
    expect((await flag("cr-d")).dependencies).toEqual([expect.objectContaining({ feature: "cr-a", enabled: true })]);
    expect((await flag("cr-e")).dependencies).toEqual([]);
    expect((await json(await api(`/api/admin/segments/${segmentToUpdate}`), 200)).constraints).toEqual([
      expect.objectContaining({ values: ["1", "2"] }),
    ]);
    await json(await api(`/api/admin/segments/${segmentToDelete}`), 404);

    for (const type of [
      "feature-environment-enabled",
      "feature-strategy-add",
      "feature-strategy-update",
      "feature-strategy-remove",
      "strategy-order-changed",
      "feature-environment-variants-updated",
      "feature-archived",
      "feature-dependency-added",
      "feature-dependencies-removed",
      "segment-updated",
      "segment-deleted",
      "change-request-applied",
    ]) {
      expect(await eventTypes(`type=${type}`), type).not.toHaveLength(0);
    }
  });

  it("keeps an applied request final", async () => {
    await json(await setState("alice", id, { state: "Cancelled" }), 409);
    await json(await setState("carol", id, { state: "Rejected" }), 409);
    await json(await api(`${base}/change-requests/${id}/changes/1`, as("alice", { method: "DELETE" })), 409);
  });
});

describe("rejecting, cancelling, editing and listing", () => {
  it("rejects: a rejected request is final and cannot be applied", async () => {
    const { id } = await json(await propose("alice", { action: "updateEnabled", feature: "cr-direct", payload: { enabled: false } }), 200);
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
    expect(env(await flag("cr-direct")).enabled).toBe(true);
    expect(await eventTypes(`project=${P}&type=change-request-rejected`)).toHaveLength(1);
  });

  it("cancels: only the creator, and a cancelled request is final", async () => {
    const { id } = await json(await propose("alice", { action: "updateEnabled", feature: "cr-direct", payload: { enabled: false } }), 200);
    await json(await setState("bob", id, { state: "Cancelled" }), 403);
    const cancelled = await json(await api(`${base}/change-requests/${id}/cancel`, as("alice", { method: "POST", body: {} })), 200);
    expect(cancelled.state).toBe("Cancelled");
    await json(await setState("alice", id, { state: "In review" }), 409);
    expect(await eventTypes(`project=${P}&type=change-request-cancelled`)).toHaveLength(1);
  });

  it("comments, retitles, removes a change (back to review) and lists by state, creator and search", async () => {
    const id = await approvedRequest([
      { action: "updateEnabled", feature: "cr-direct", payload: { enabled: false } },
      { action: "patchVariant", feature: "cr-direct", payload: { variants: [] } },
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
    const { id } = await json(await propose("carol", { action: "updateEnabled", feature: "cr-direct", payload: { enabled: false } }), 200);
    const seenByAlice = await json(await api(`${base}/change-requests`, as("alice")), 200);
    expect(seenByAlice.map((r: { id: number }) => r.id)).not.toContain(id);
    const seenByCarol = await json(await api(`${base}/change-requests`, as("carol")), 200);
    expect(seenByCarol.map((r: { id: number }) => r.id)).toContain(id);
    await json(await api(`${base}/change-requests/${id}`, as("carol", { method: "DELETE" })), 204);
  });
});

describe("conflicts and all-or-nothing applying", () => {
  it("marks a change whose strategy was changed by another request and refuses to apply until resolved", async () => {
    await json(
      await api(`${base}/environments/production/change-requests/config`, { method: "PUT", body: { changeRequestsEnabled: false } }),
      204,
    );
    await createFlag("cr-f");
    const strategy = await addStrategy("cr-f");
    await json(
      await api(`${base}/environments/production/change-requests/config`, { method: "PUT", body: { changeRequestsEnabled: true } }),
      204,
    );

    const { id: first } = await json(
      await propose("alice", {
        action: "updateStrategy",
        feature: "cr-f",
        payload: { id: strategy.id, name: "default", constraints: [], parameters: {}, title: "mine" },
      }),
      200,
    );
    await json(await setState("alice", first, { state: "In review" }), 200);
    const { id: second } = await json(
      await propose("dave", { action: "deleteStrategy", feature: "cr-f", payload: { id: strategy.id } }),
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
    const resolved = await json(await api(`${base}/change-requests/${first}/changes/${change.id}`, as("alice", { method: "DELETE" })), 200);
    expect(resolved).toMatchObject({ state: "In review", features: [] });
  });

  it("applies nothing when a change fails midway, and records why", async () => {
    await createFlag("cr-g");
    await createFlag("cr-h");
    const { id: doomed } = await json(
      await api("/api/admin/segments", { method: "POST", body: { name: "cr-doomed", constraints: [] } }),
      201,
    );
    const id = await approvedRequest([
      { action: "addStrategy", feature: "cr-g", payload: { name: "default", constraints: [], parameters: {} } },
      { action: "updateEnabled", feature: "cr-g", payload: { enabled: true } },
      { action: "addStrategy", feature: "cr-h", payload: { name: "default", constraints: [], parameters: {}, segments: [doomed] } },
    ]);
    // The segment goes away after the proposal: not a conflict of the request, so applying starts,
    // the first strategy is added, and the second fails.
    await json(await api(`/api/admin/segments/${doomed}`, { method: "DELETE" }), 204);
    const before = (await json(await api(`/api/admin/search/events?limit=1000`), 200)).total;

    const failed = await json(await setState("bob", id, { state: "Applied" }), 400);
    expect(failed.message).toMatch(new RegExp(String(doomed)));
    const g = env(await flag("cr-g"));
    expect(g).toMatchObject({ enabled: false, strategies: [] });
    expect(env(await flag("cr-h")).strategies).toEqual([]);
    expect((await json(await api(`/api/admin/search/events?limit=1000`), 200)).total).toBe(before);
    const after = await get(id);
    expect(after).toMatchObject({ state: "Approved", failureReason: expect.stringContaining(String(doomed)) });
  });
});

describe("scheduling", () => {
  it("refuses a time in the past and applies at the scheduled time", async () => {
    await createFlag("cr-s");
    const id = await approvedRequest([
      { action: "addStrategy", feature: "cr-s", payload: { name: "default", constraints: [], parameters: {} } },
      { action: "updateEnabled", feature: "cr-s", payload: { enabled: true } },
    ]);
    await json(await setState("bob", id, { state: "Scheduled", scheduledAt: "2001-01-01T00:00:00.000Z" }), 400);
    await json(await setState("bob", id, { state: "Scheduled" }), 400);
    const at = new Date(Date.now() + 1500).toISOString();
    const scheduled = await json(await setState("bob", id, { state: "Scheduled", scheduledAt: at }), 200);
    expect(scheduled).toMatchObject({ state: "Scheduled", schedule: { scheduledAt: at, status: "pending" } });
    expect(env(await flag("cr-s")).enabled).toBe(false);
    await expect.poll(async () => (await get(id)).state, { timeout: 10_000, interval: 200 }).toBe("Applied");
    expect(env(await flag("cr-s")).enabled).toBe(true);
    expect(await eventTypes(`project=${P}&type=change-request-scheduled`)).toHaveLength(1);
    expect(await eventTypes(`project=${P}&type=change-request-scheduled-application-success`)).toHaveLength(1);
  });
});

describe("collaboration modes", () => {
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
