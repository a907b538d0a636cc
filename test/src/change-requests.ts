/**
 * Change requests as the end-to-end files drive them: people who act through personal access
 * tokens, proposing, moving and reading requests in one project through the gateway.
 */
import { expect } from "vitest";
import { expectJson as json, type ApiInit, type TestSystem } from "./harness.js";

export interface Person {
  id: number;
  token: string;
}

/** The editors who propose and review: alice proposes, bob and carol approve, dave is the outsider. */
export async function signInReviewers(vexil: TestSystem): Promise<Record<string, Person>> {
  const people: Record<string, Person> = {};
  for (const username of ["alice", "bob", "carol", "dave"]) people[username] = await vexil.createPerson({ username, rootRole: "Editor" });
  return people;
}

export interface FeatureEnvironmentView {
  enabled: boolean;
  strategies: Record<string, unknown>[];
  variants: Record<string, unknown>[];
}

/** A feature's environment, production unless named. */
export const env = (feature: { environments: { name: string }[] }, name = "production") =>
  feature.environments.find((e) => e.name === name) as unknown as FeatureEnvironmentView;

export function changeRequestHelpers(vexil: () => TestSystem, people: Record<string, Person>, project: string) {
  const base = `/api/admin/projects/${project}`;
  const api = (path: string, init?: ApiInit) => vexil().api(path, init);
  const as = (who: string, init: ApiInit = {}): ApiInit => ({ ...init, token: people[who]!.token });
  const propose = (who: string, changes: unknown, environment = "production", inProject = project) =>
    api(`/api/admin/projects/${inProject}/environments/${environment}/change-requests`, as(who, { method: "POST", body: changes }));
  const setState = (who: string, id: number, body: Record<string, unknown>, inProject = project) =>
    api(`/api/admin/projects/${inProject}/change-requests/${id}/state`, as(who, { method: "PUT", body }));

  return {
    base,
    api,
    as,
    propose,
    setState,
    async createFlag(name: string, inProject = project) {
      await json(await api(`/api/admin/projects/${inProject}/features`, { method: "POST", body: { name } }), 201);
    },
    async addStrategy(flag: string, body: Record<string, unknown> = { name: "default" }, environment = "production") {
      return json(await api(`${base}/features/${flag}/environments/${environment}/strategies`, { method: "POST", body }), 200);
    },
    flag: async (name: string) => json(await api(`${base}/features/${name}`), 200),
    get: async (id: number, who = "alice") => json(await api(`${base}/change-requests/${id}`, as(who)), 200),
    /** A request by alice, sent to review and approved by bob and carol (two approvals required). */
    async approvedRequest(changes: unknown): Promise<number> {
      const { id } = await json(await propose("alice", changes), 200);
      await json(await setState("alice", id, { state: "In review" }), 200);
      await json(await api(`${base}/change-requests/${id}/approve`, as("bob", { method: "POST", body: {} })), 200);
      const approved = await json(await api(`${base}/change-requests/${id}/approve`, as("carol", { method: "POST", body: {} })), 200);
      expect(approved.state).toBe("Approved");
      return id;
    },
    async eventTypes(query: string): Promise<string[]> {
      const { events } = await json(await api(`/api/admin/search/events?${query}&limit=100`), 200);
      return events.map((e: { type: string }) => e.type);
    },
    /** Turns change requests on for production with two required approvals. */
    async protectProduction() {
      await json(
        await api(`${base}/environments/production/change-requests/config`, {
          method: "PUT",
          body: { changeRequestsEnabled: true, requiredApprovals: 2 },
        }),
        204,
      );
    },
  };
}
