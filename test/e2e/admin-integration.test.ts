import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson as json, startTestSystem, type ApiInit, type TestSystem } from "../src/harness.js";
import { waitFor } from "../src/servers.js";

/**
 * Where the admin slices meet, end to end through the gateway: project members, change-request
 * settings and favorites in project views, segment usage by change requests, actions against
 * protected environments, collaborators and environment deletion.
 */
let vexil: TestSystem;
const people: Record<string, { id: number; token: string }> = {};

beforeAll(async () => {
  vexil = await startTestSystem();
  for (const username of ["erin", "frank"]) {
    people[username] = await vexil.createPerson({ username, email: `${username}@Example.com`, rootRole: "Editor" });
  }
});
afterAll(() => vexil?.stop());

const api = (path: string, init?: ApiInit) => vexil.api(path, init);
const as = (who: string, init: ApiInit = {}): ApiInit => ({ ...init, token: people[who]!.token });

async function eventTypes(query: string): Promise<string[]> {
  const { events } = await json(await api(`/api/admin/search/events?${query}&limit=100`), 200);
  return events.map((e: { type: string }) => e.type);
}

describe("projects: members, change-request settings and favorites", () => {
  const P = "team-proj";
  beforeAll(async () => {
    await json(await api("/api/admin/projects", { method: "POST", body: { id: P, name: "Team" } }), 201);
  });

  it("counts the project's members in the list, the overview and the health report", async () => {
    await json(
      await api(`/api/admin/projects/${P}/access`, {
        method: "POST",
        body: { users: [{ id: people.erin!.id }, { id: people.frank!.id }], roles: [5] },
      }),
      200,
    );
    const { projects } = await json(await api("/api/admin/projects"), 200);
    expect(projects.find((p: { id: string }) => p.id === P).memberCount).toBe(2);
    expect((await json(await api(`/api/admin/projects/${P}`), 200)).members).toBe(2);
    expect((await json(await api(`/api/admin/projects/${P}/health-report`), 200)).members).toBe(2);
  });

  it("shows which environments require change requests", async () => {
    await json(
      await api(`/api/admin/projects/${P}/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true, requiredApprovals: 1 },
      }),
      204,
    );
    const { environments } = await json(await api(`/api/admin/projects/${P}/health-report`), 200);
    expect(environments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ environment: "production", changeRequestsEnabled: true }),
        expect.objectContaining({ environment: "development", changeRequestsEnabled: false }),
      ]),
    );
  });

  it("marks a favorite for the caller only, records the event once, and unmarks it", async () => {
    const favoriteOf = async (init: ApiInit = {}) => {
      const { projects } = await json(await api("/api/admin/projects", init), 200);
      return {
        list: projects.find((p: { id: string }) => p.id === P).favorite,
        overview: (await json(await api(`/api/admin/projects/${P}`, init), 200)).favorite,
        health: (await json(await api(`/api/admin/projects/${P}/health-report`, init), 200)).favorite,
      };
    };
    expect(await favoriteOf(as("erin"))).toEqual({ list: false, overview: false, health: false });
    await json(await api(`/api/admin/projects/${P}/favorites`, as("erin", { method: "POST" })), 200);
    await json(await api(`/api/admin/projects/${P}/favorites`, as("erin", { method: "POST" })), 200);
    expect(await favoriteOf(as("erin"))).toEqual({ list: true, overview: true, health: true });
    expect(await favoriteOf(as("frank"))).toEqual({ list: false, overview: false, health: false });
    expect((await eventTypes(`project=${P}&type=project-favorited`)).length).toBe(1);

    await json(await api(`/api/admin/projects/${P}/favorites`, as("erin", { method: "DELETE" })), 200);
    expect(await favoriteOf(as("erin"))).toEqual({ list: false, overview: false, health: false });
    expect(await eventTypes(`project=${P}&type=project-unfavorited`)).toEqual(["project-unfavorited"]);
  });

  it("answers 404 for an unknown project's favorite and 401 without credentials", async () => {
    expect((await api("/api/admin/projects/nope/favorites", { method: "POST" })).status).toBe(404);
    expect((await api(`/api/admin/projects/${P}/favorites`, { method: "POST", token: null })).status).toBe(401);
  });
});

describe("segments used by pending change requests", () => {
  const P = "seg-cr";
  it("counts flags a pending change request adds the segment to, and lists those strategies", async () => {
    await json(await api("/api/admin/projects", { method: "POST", body: { id: P, name: "Segments in review" } }), 201);
    await json(
      await api(`/api/admin/projects/${P}/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true },
      }),
      204,
    );
    await json(await api(`/api/admin/projects/${P}/features`, { method: "POST", body: { name: "seg-cr-flag" } }), 201);
    const segment = await json(await api("/api/admin/segments", { method: "POST", body: { name: "pending-users", constraints: [] } }), 201);
    const before = await json(await api(`/api/admin/segments/${segment.id}`), 200);
    expect(before).toMatchObject({ usedInFeatures: 0, usedInProjects: 0 });

    const request = await json(
      await api(`/api/admin/projects/${P}/environments/production/change-requests`, {
        method: "POST",
        body: {
          action: "addStrategy",
          feature: "seg-cr-flag",
          payload: { name: "default", constraints: [], parameters: {}, segments: [segment.id] },
        },
      }),
      200,
    );

    expect(await json(await api(`/api/admin/segments/${segment.id}`), 200)).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });
    const listed = (await json(await api("/api/admin/segments"), 200)).segments.find((s: { id: number }) => s.id === segment.id);
    expect(listed).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });
    expect(await json(await api(`/api/admin/segments/${segment.id}/strategies`), 200)).toEqual({
      strategies: [],
      changeRequestStrategies: [
        {
          projectId: P,
          featureName: "seg-cr-flag",
          strategyName: "default",
          environment: "production",
          changeRequest: { id: request.id, title: request.title },
        },
      ],
    });

    // A cancelled request no longer counts.
    await json(
      await api(`/api/admin/projects/${P}/change-requests/${request.id}/state`, { method: "PUT", body: { state: "Cancelled" } }),
      200,
    );
    expect(await json(await api(`/api/admin/segments/${segment.id}`), 200)).toMatchObject({ usedInFeatures: 0, usedInProjects: 0 });
    expect((await json(await api(`/api/admin/segments/${segment.id}/strategies`), 200)).changeRequestStrategies).toEqual([]);
  });
});

/** In `default` and in a project created while Vexil runs; each project's flags and the things acting on them carry its name. */
describe.each(["default", "guarded"])(
  "changes that do not come from a person, against an environment of project %s that requires change requests",
  (P) => {
    const flag = `${P}-kill-switch`;
    const parent = `${P}-parent`;
    beforeAll(async () => {
      if (P !== "default") await vexil.createProject(P);
      for (const name of [flag, parent])
        await json(await api(`/api/admin/projects/${P}/features`, { method: "POST", body: { name } }), 201);
      await json(await api(`/api/admin/projects/${P}/features/${flag}/environments/production/on`, { method: "POST" }), 200);
      await json(
        await api(`/api/admin/projects/${P}/environments/production/change-requests/config`, {
          method: "PUT",
          body: { changeRequestsEnabled: true },
        }),
        204,
      );
    });
    const productionEnabled = async () =>
      (await json(await api(`/api/admin/projects/${P}/features/${flag}`), 200)).environments.find(
        (e: { name: string }) => e.name === "production",
      ).enabled;

    it("refuses an action's flag flip like a person's, and logs the action as failed with the reason", async () => {
      const endpoint = await json(await api("/api/admin/signal-endpoints", { method: "POST", body: { name: `${P}-alerts` } }), 201);
      const { token } = await json(
        await api(`/api/admin/signal-endpoints/${endpoint.id}/tokens`, { method: "POST", body: { name: "monitor" } }),
        201,
      );
      const account = await json(
        await api("/api/admin/service-account", { method: "POST", body: { username: `${P}-bot`, name: "Guard bot", rootRole: "Admin" } }),
        201,
      );
      const set = await json(
        await api(`/api/admin/projects/${P}/actions`, {
          method: "POST",
          body: {
            name: "Kill switch",
            enabled: true,
            actorId: account.id,
            match: { source: "signal-endpoint", sourceId: endpoint.id, payload: {} },
            actions: [
              { action: "TOGGLE_FEATURE_OFF", sortOrder: 1, executionParams: { project: P, featureName: flag, environment: "production" } },
            ],
          },
        }),
        201,
      );

      const sent = await fetch(`${vexil.url}/api/signal-endpoint/${P}-alerts`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ alert: "firing" }),
      });
      expect(sent.status).toBe(202);
      let runs: { state: string; actionSet: { actions: { state: string; details?: string }[] } }[] = [];
      const finished = await waitFor(async () => {
        runs = (await json(await api(`/api/admin/projects/${P}/actions/${set.id}/events`), 200)).actionSetEvents;
        return runs[0] !== undefined && runs[0].state !== "started";
      }, 60_000);
      expect(finished, JSON.stringify(runs)).toBe(true);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ state: "failed" });
      expect(runs[0]!.actionSet.actions[0]).toMatchObject({
        state: "failed",
        details: expect.stringMatching(/Change requests are enabled for environment production/),
      });
      expect(await productionEnabled()).toBe(true);
    });

    it("lets dependencies and global segments change directly: neither belongs to an environment", async () => {
      await json(await api(`/api/admin/projects/${P}/features/${flag}/dependencies`, { method: "POST", body: { feature: parent } }), 200);
      expect((await json(await api(`/api/admin/projects/${P}/features/${flag}`), 200)).dependencies).toEqual([
        expect.objectContaining({ feature: parent }),
      ]);
      const segment = await json(await api("/api/admin/segments", { method: "POST", body: { name: `${P}-users`, constraints: [] } }), 201);
      const strategy = await json(
        await api(`/api/admin/projects/${P}/features/${parent}/environments/development/strategies`, {
          method: "POST",
          body: { name: "default", segments: [segment.id] },
        }),
        200,
      );
      expect(strategy.segments).toEqual([segment.id]);
      await json(
        await api(`/api/admin/segments/${segment.id}`, {
          method: "PUT",
          body: { name: `${P}-users`, constraints: [{ contextName: "userId", operator: "IN", values: ["1"] }] },
        }),
        204,
      );
    });
  },
);

describe("collaborators' avatars", () => {
  it("shows a person's Gravatar from their email, and none for an API token", async () => {
    await json(await api("/api/admin/projects/default/features", as("erin", { method: "POST", body: { name: "avatar-flag" } })), 201);
    await json(
      await api("/api/admin/projects/default/features/avatar-flag", { method: "PUT", body: { description: "by the admin token" } }),
      200,
    );
    const feature = await json(await api("/api/admin/projects/default/features/avatar-flag"), 200);
    const erinHash = createHash("md5").update("erin@example.com").digest("hex");
    expect(feature.collaborators.users).toEqual([
      expect.objectContaining({ imageUrl: "" }),
      expect.objectContaining({ id: people.erin!.id, imageUrl: `https://gravatar.com/avatar/${erinHash}?s=42&d=retro&r=g` }),
    ]);
    expect(feature.createdBy).toMatchObject({ id: people.erin!.id, imageUrl: `https://gravatar.com/avatar/${erinHash}?s=42&d=retro&r=g` });
  });
});

describe("deleting an environment", () => {
  it("deletes one no project uses and records environment-deleted", async () => {
    await json(await api("/api/admin/environments", { method: "POST", body: { name: "scratch", type: "test" } }), 201);
    await json(await api("/api/admin/environments/scratch", { method: "DELETE" }), 200);
    expect((await api("/api/admin/environments/scratch")).status).toBe(404);
    expect(await eventTypes("type=environment-deleted")).toEqual(["environment-deleted"]);
  });

  it("refuses while a project has it enabled (409), and answers 404 for an unknown one and 401 without credentials", async () => {
    await json(await api("/api/admin/environments", { method: "POST", body: { name: "staging", type: "test" } }), 201);
    await json(await api("/api/admin/projects/default/environments", { method: "POST", body: { environment: "staging" } }), 200);
    const refused = await json(await api("/api/admin/environments/staging", { method: "DELETE" }), 409);
    expect(refused.message).toMatch(/enabled in project\(s\) default/);
    expect((await api("/api/admin/environments/staging")).status).toBe(200);
    expect((await api("/api/admin/environments/nope", { method: "DELETE" })).status).toBe(404);
    expect((await api("/api/admin/environments/staging", { method: "DELETE", token: null })).status).toBe(401);

    await json(await api("/api/admin/projects/default/environments/staging", { method: "DELETE" }), 200);
    await json(await api("/api/admin/environments/staging", { method: "DELETE" }), 200);
  });
});

describe("change request edits are in the event log", () => {
  it("records change-added when a change joins a draft and change-discarded when one is removed", async () => {
    const P = "cr-events";
    await json(await api("/api/admin/projects", { method: "POST", body: { id: P, name: "Change request events" } }), 201);
    await json(
      await api(`/api/admin/projects/${P}/environments/production/change-requests/config`, {
        method: "PUT",
        body: { changeRequestsEnabled: true },
      }),
      204,
    );
    await json(await api(`/api/admin/projects/${P}/features`, { method: "POST", body: { name: "cr-events-flag" } }), 201);
    const propose = (enabled: boolean, action = "updateEnabled") =>
      api(`/api/admin/projects/${P}/environments/production/change-requests`, {
        method: "POST",
        body: { action, feature: "cr-events-flag", payload: { enabled } },
      });
    const first = await json(await propose(true), 200);
    const second = await json(await propose(false, "patchVariant"), 400);
    expect(second.name).toBe("ValidationError");
    const joined = await json(
      await api(`/api/admin/projects/${P}/environments/production/change-requests`, {
        method: "POST",
        body: { action: "archiveFeature", feature: "cr-events-flag", payload: {} },
      }),
      200,
    );
    expect(joined.id).toBe(first.id);
    expect(await eventTypes(`project=${P}&type=change-added`)).toEqual(["change-added"]);

    const changeId = joined.features[0].changes.find((c: { action: string }) => c.action === "archiveFeature").id;
    await json(await api(`/api/admin/projects/${P}/change-requests/${first.id}/changes/${changeId}`, { method: "DELETE" }), 200);
    expect(await eventTypes(`project=${P}&type=change-discarded`)).toEqual(["change-discarded"]);
  });
});
