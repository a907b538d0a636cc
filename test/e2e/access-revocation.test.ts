import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";

const available = await clusterAvailable("revocation across processes");

/**
 * In cluster mode, where token changes travel the production path between processes: grants in
 * Redis, the `tokens.changed` notice and the `tokens.seen` reports over NATS. Admin issues and
 * revokes; the frontend-eval process admits and refuses.
 */
describe.skipIf(!available)("API token revocation across processes", () => {
  let vexil: TestSystem;

  beforeAll(async () => {
    vexil = await startTestSystem({ mode: "cluster" });
    await vexil.createProject("revocation");
    await vexil.expectStatus("/api/admin/projects/revocation/features", { method: "POST", body: { name: "revocation-flag" } }, 201);
    await vexil.expectStatus(
      "/api/admin/projects/revocation/features/revocation-flag/environments/development/on",
      { method: "POST" },
      200,
    );
  });
  afterAll(() => vexil?.stop());

  const scopes = [
    { scope: "a project created at run time", projects: () => ["revocation"] },
    { scope: "several projects", projects: () => ["revocation", "default"] },
    { scope: "every project", projects: () => ["*"] },
  ];

  it.each(scopes)(
    "admits a new token for $scope on every surface, records its use, and refuses it once revoked",
    async ({ projects }) => {
      const frontend = await vexil.createApiToken({
        type: "frontend",
        projects: projects(),
        name: `wire-frontend-${projects().join("-")}`,
      });
      const client = await vexil.createApiToken({ type: "client", projects: projects(), name: `wire-client-${projects().join("-")}` });
      // What each surface answers: the flag of the run-time project once admitted, the status otherwise.
      const surfaces = async () => {
        const toggles = await vexil.api("/api/frontend", { token: frontend });
        const features = await vexil.api("/api/client/features", { token: client });
        return [
          toggles.ok ? (await toggles.json()).toggles.map((t: { name: string }) => t.name).join() : toggles.status,
          features.ok ? (await features.json()).features.map((f: { name: string }) => f.name).join() : features.status,
        ];
      };
      const until = async (check: (s: Array<string | number>) => boolean) => {
        // Generous for a loaded machine; the README's "within a second" is the usual case, not asserted here.
        const deadline = Date.now() + 15_000;
        let last = await surfaces();
        while (!check(last) && Date.now() < deadline) last = await surfaces();
        return last;
      };

      expect(await until((s) => s.every((answer) => answer === "revocation-flag"))).toEqual(["revocation-flag", "revocation-flag"]);

      const seenAt = async () => {
        const { tokens } = (await vexil.expectStatus("/api/admin/api-tokens", undefined, 200)) as {
          tokens: { secret?: string; tokenName: string; seenAt: string | null }[];
        };
        return tokens.filter((t) => t.tokenName.endsWith(projects().join("-")) && t.tokenName.startsWith("wire-")).map((t) => t.seenAt);
      };
      let seen = await seenAt();
      for (const deadline = Date.now() + 15_000; seen.some((s) => !s) && Date.now() < deadline; seen = await seenAt()) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen).toEqual([expect.any(String), expect.any(String)]);

      for (const secret of [frontend, client]) {
        expect((await vexil.api(`/api/admin/api-tokens/${encodeURIComponent(secret)}`, { method: "DELETE" })).status).toBe(200);
      }
      expect(await until((s) => s.every((status) => status === 401))).toEqual([401, 401]);
    },
    60_000,
  );
});
