import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeRequestHelpers, env, signInReviewers, type Person } from "../src/change-requests.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Change requests end to end through the gateway: configuration, the guard on direct changes, and
 * the 11 actions proposed, reviewed and applied, in `default` and in a project created while Vexil
 * runs. People act through personal access tokens. Rejecting, editing, conflicts, scheduling and
 * collaboration modes are `change-request-review.test.ts`.
 */
let vexil: TestSystem;
const people: Record<string, Person> = {};

/** A project without flags that the several-project tokens include. */
const elsewhere = "cr-elsewhere";

beforeAll(async () => {
  vexil = await startTestSystem();
  Object.assign(people, await signInReviewers(vexil));
  await vexil.createProject(elsewhere);
});
afterAll(() => vexil?.stop());

describe.each(["default", "cr"])("change requests in project %s", (P) => {
  const { base, api, as, propose, setState, createFlag, addStrategy, flag, get, eventTypes } = changeRequestHelpers(() => vexil, people, P);
  let segmentToUpdate: number;
  let segmentToDelete: number;
  let strategyIds: { s1: string; s2: string; s3: string };

  beforeAll(async () => {
    if (P !== "default") await vexil.createProject(P);
  });

  describe("configuration and the guard on direct changes", () => {
    beforeAll(async () => {
      for (const name of [`${P}-a`, `${P}-b`, `${P}-c`, `${P}-d`, `${P}-e`, `${P}-direct`]) await createFlag(name);
      const [s1, s2, s3] = [
        await addStrategy(`${P}-b`),
        await addStrategy(`${P}-b`, { name: "userWithId", parameters: { userIds: "1" } }),
        await addStrategy(`${P}-b`),
      ];
      strategyIds = { s1: s1.id, s2: s2.id, s3: s3.id };
      await json(await api(`${base}/features/${P}-e/dependencies`, { method: "POST", body: { feature: `${P}-a` } }), 200);
      await addStrategy(`${P}-direct`);
      await json(await api(`${base}/features/${P}-direct/environments/production/on`, { method: "POST" }), 200);
      segmentToUpdate = (
        await json(await api("/api/admin/segments", { method: "POST", body: { name: `${P}-beta`, constraints: [] } }), 201)
      ).id;
      segmentToDelete = (
        await json(await api("/api/admin/segments", { method: "POST", body: { name: `${P}-gone`, constraints: [] } }), 201)
      ).id;
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
        api(`${base}/features/${P}-a/environments/production/on`, { method: "POST" }),
        api(`${base}/features/${P}-direct/environments/production/off`, { method: "POST" }),
        api(`${base}/features/${P}-a/environments/production/strategies`, { method: "POST", body: { name: "default" } }),
        api(`${base}/features/${P}-b/environments/production/strategies/${strategyIds.s1}`, { method: "DELETE" }),
        api(`${base}/features/${P}-b/environments/production/variants`, {
          method: "PUT",
          body: [{ name: "a", weight: 1000, weightType: "variable", stickiness: "default" }],
        }),
        api(`${base}/features/${P}-direct`, { method: "DELETE" }),
      ];
      for (const res of await Promise.all(refusals)) {
        const body = await json(res, 403);
        expect(body.name).toBe("NoAccessError");
        expect(body.message).toMatch(
          new RegExp(`Change requests are enabled for environment production in project ${P}: propose this change in a change request`),
        );
      }
      expect(env(await flag(`${P}-direct`)).enabled).toBe(true);
      expect(env(await flag(`${P}-b`)).strategies).toHaveLength(3);
      // Other environments stay directly changeable.
      await json(await api(`${base}/features/${P}-a/environments/development/on`, { method: "POST" }), 200);
    });
  });

  describe("proposing changes", () => {
    it("refuses a bad payload with 400 and leaves the draft as it was", async () => {
      const draft = await json(await propose("dave", { action: "updateEnabled", feature: `${P}-a`, payload: { enabled: true } }), 200);
      expect(draft).toMatchObject({
        state: "Draft",
        minApprovals: 2,
        environment: "production",
        project: P,
        createdBy: { id: people.dave!.id, username: "dave" },
      });
      const bad: [unknown, RegExp][] = [
        [
          { action: "addStrategy", feature: `${P}-a`, payload: { name: "no-such-strategy", constraints: [], parameters: {} } },
          /no-such-strategy/,
        ],
        [
          {
            action: "addStrategy",
            feature: `${P}-a`,
            payload: { name: "default", constraints: [{ contextName: "appName", operator: "NUM_GT", value: "x" }], parameters: {} },
          },
          /body\.1\.payload/,
        ],
        [
          { action: "addStrategy", feature: `${P}-a`, payload: { name: "default", constraints: [], parameters: {}, segments: [9999] } },
          /9999/,
        ],
        [{ action: "deleteStrategy", feature: `${P}-b`, payload: { id: "missing" } }, /strategy missing does not exist/],
        [
          { action: "updateEnabled", feature: "nope", payload: { enabled: true } },
          new RegExp(`feature nope does not exist in project ${P}`),
        ],
        [
          {
            action: "patchVariant",
            feature: `${P}-a`,
            payload: { variants: [{ name: "x", weight: 1000, weightType: "fix", stickiness: "default" }] },
          },
          /variable/,
        ],
        // The same range checks as a direct strategy write: applying must never store what a write refuses.
        ...["150", "-5", "abc", "1e309"].map((rollout): [unknown, RegExp] => [
          { action: "addStrategy", feature: `${P}-a`, payload: { name: "flexibleRollout", constraints: [], parameters: { rollout } } },
          /whole number from 0 to 100/,
        ]),
        [
          {
            action: "updateStrategy",
            feature: `${P}-b`,
            payload: { id: strategyIds.s1, name: "gradualRolloutRandom", parameters: { percentage: "101" } },
          },
          /whole number from 0 to 100/,
        ],
        [
          { action: "addStrategy", feature: `${P}-a`, payload: { name: "default", constraints: [], parameters: {}, sortOrder: 1.5 } },
          /whole/,
        ],
        [{ action: "reorderStrategy", feature: `${P}-b`, payload: [{ id: strategyIds.s1, sortOrder: 0.5 }] }, /whole/],
        [{ action: "deleteSegment", payload: { id: 9999 } }, /no segment exists/],
        [{ action: "addDependency", feature: `${P}-d`, payload: { feature: `${P}-d` } }, /cannot depend on itself/],
        [{ action: "updateEnabled", feature: `${P}-a` }, /payload/],
        [{ action: "renameFeature", feature: `${P}-a`, payload: {} }, /action/],
      ];
      for (const [change, message] of bad) {
        const body = await json(await propose("dave", [{ action: "archiveFeature", feature: `${P}-c` }, change]), 400);
        expect(body.name).toBe("ValidationError");
        expect(body.message + JSON.stringify(body.details ?? [])).toMatch(message);
      }
      const after = await get(draft.id, "dave");
      expect(after.features.map((f: { name: string }) => f.name)).toEqual([`${P}-a`]);
      await json(await api(`${base}/change-requests/${draft.id}`, as("dave", { method: "DELETE" })), 204);
      await json(await api(`${base}/change-requests/${draft.id}`, as("dave")), 404);
      expect(await eventTypes(`project=${P}&type=change-request-discarded`)).toHaveLength(1);
    });

    it("refuses proposals where change requests are off", async () => {
      const body = await json(
        await propose("alice", { action: "updateEnabled", feature: `${P}-a`, payload: { enabled: true } }, "development"),
        400,
      );
      expect(body.message).toMatch(/not enabled for environment development/);
    });
  });

  describe("the 11 actions, proposed, reviewed and applied", () => {
    let id: number;
    it("appends one change or many to the caller's draft, combining changes of the same kind", async () => {
      const first = await json(await propose("alice", { action: "updateEnabled", feature: `${P}-a`, payload: { enabled: false } }), 200);
      id = first.id;
      expect(first).toMatchObject({ state: "Draft", title: `Change request #${id}` });
      const all = await json(
        await propose("alice", [
          { action: "updateEnabled", feature: `${P}-a`, payload: { enabled: true } },
          {
            action: "addStrategy",
            feature: `${P}-b`,
            payload: {
              name: "flexibleRollout",
              constraints: [],
              parameters: { rollout: "50", stickiness: "default" },
              segments: [segmentToUpdate],
            },
          },
          {
            action: "updateStrategy",
            feature: `${P}-b`,
            payload: {
              id: strategyIds.s1,
              name: "default",
              constraints: [{ contextName: "userId", operator: "IN", values: ["7"] }],
              parameters: {},
            },
          },
          { action: "deleteStrategy", feature: `${P}-b`, payload: { id: strategyIds.s2 } },
          {
            action: "reorderStrategy",
            feature: `${P}-b`,
            payload: [
              { id: strategyIds.s3, sortOrder: 0 },
              { id: strategyIds.s1, sortOrder: 1 },
            ],
          },
          {
            action: "patchVariant",
            feature: `${P}-b`,
            payload: {
              variants: [
                { name: "blue", weight: 500, weightType: "variable", stickiness: "default" },
                { name: "red", weight: 500, weightType: "variable", stickiness: "default" },
              ],
            },
          },
          { action: "archiveFeature", feature: `${P}-c` },
          { action: "addDependency", feature: `${P}-d`, payload: { feature: `${P}-a`, enabled: true } },
          { action: "deleteDependency", feature: `${P}-e` },
          {
            action: "updateSegment",
            payload: {
              id: segmentToUpdate,
              name: `${P}-beta`,
              constraints: [{ contextName: "userId", operator: "IN", values: ["1", "2"] }],
            },
          },
          { action: "deleteSegment", payload: { id: segmentToDelete } },
        ]),
        200,
      );
      expect(all.id).toBe(id);
      const a = all.features.find((f: { name: string }) => f.name === `${P}-a`);
      expect(a.changes).toEqual([
        expect.objectContaining({ action: "updateEnabled", payload: { enabled: true }, createdBy: { username: "alice" } }),
      ]);
      // Enabling a flag without strategies adds the environment's default strategy when applied.
      expect(a.defaultChange).toMatchObject({
        action: "addStrategy",
        payload: { name: "flexibleRollout", parameters: { rollout: "100", groupId: `${P}-a` } },
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
      expect(all.segments).toContainEqual(expect.objectContaining({ action: "deleteSegment", name: `${P}-gone` }));
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
      const applied = await json(await api(`${base}/change-requests/${id}/apply`, as("bob", { method: "POST", body: {} })), 200);
      expect(applied).toMatchObject({ id, state: "Applied" });

      const a = env(await flag(`${P}-a`));
      expect(a.enabled).toBe(true);
      expect(a.strategies).toEqual([
        expect.objectContaining({ name: "flexibleRollout", parameters: expect.objectContaining({ groupId: `${P}-a` }) }),
      ]);
      const b = env(await flag(`${P}-b`));
      expect(b.strategies.map((s) => s.id)).toEqual([strategyIds.s3, strategyIds.s1, expect.any(String)]);
      expect(b.strategies.find((s) => s.id === strategyIds.s1)).toMatchObject({
        constraints: [expect.objectContaining({ values: ["7"] })],
      });
      expect(b.strategies[2]).toMatchObject({ name: "flexibleRollout", segments: [segmentToUpdate] });
      expect(b.variants.map((v) => v.name)).toEqual(["blue", "red"]);
      await json(await api(`${base}/features/${P}-c`), 404);
      expect((await flag(`${P}-d`)).dependencies).toEqual([expect.objectContaining({ feature: `${P}-a`, enabled: true })]);
      expect((await flag(`${P}-e`)).dependencies).toEqual([]);
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

    it.each([
      { scope: "this project", projects: () => [P] },
      { scope: "this project and another", projects: () => [P, elsewhere] },
      { scope: "every project", projects: () => ["*"] },
    ])("serves the applied changes to production client tokens for $scope", async ({ projects }) => {
      const token = await vexil.createApiToken({ type: "client", projects: projects(), environment: "production" });
      const served = async () =>
        ((await json(await api("/api/client/features", { token }), 200)).features as Array<{ name: string; enabled: boolean }>).filter(
          (f) => f.name.startsWith(`${P}-`),
        );
      await expect
        .poll(async () => (await served()).find((f) => f.name === `${P}-a`)?.enabled, { timeout: 60_000, interval: 100 })
        .toBe(true);
      const names = (await served()).map((f) => f.name);
      expect(names).toContain(`${P}-b`);
      expect(names).not.toContain(`${P}-c`);
    });

    it("keeps an applied request final", async () => {
      await json(await setState("alice", id, { state: "Cancelled" }), 409);
      await json(await setState("carol", id, { state: "Rejected" }), 409);
      await json(await api(`${base}/change-requests/${id}/changes/1`, as("alice", { method: "DELETE" })), 409);
    });
  });
});
