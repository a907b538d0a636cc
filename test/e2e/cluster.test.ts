import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { waitFor } from "../src/servers.js";

const available = await clusterAvailable("cluster mode");

/** `npm run start:cluster`: the gateway and each service in its own process, over NATS and Redis. */
describe.skipIf(!available)("npm run start:cluster", () => {
  let vexil: TestSystem;

  beforeAll(async () => {
    vexil = await startTestSystem({ mode: "cluster" });
  });
  afterAll(() => vexil?.stop());

  const strategies = () => vexil.api("/api/admin/strategies");

  it("serves the admin API through the gateway while admin runs in another process", async () => {
    const res = await strategies();
    expect(res.status).toBe(200);
    expect((await res.json()).strategies.length).toBeGreaterThan(0);
    expect((await vexil.api("/ready", { token: null })).status).toBe(200);
    // The gateway names each surface's replicas, and whether each is ready, in its health details.
    const { details } = await (await vexil.api("/health", { token: null })).json();
    expect(Object.keys(details.surfaces).sort()).toEqual(["admin", "frontend-eval", "signal-ingest"]);
    expect(details.surfaces["frontend-eval"]).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), ready: true }]);
  });

  describe.each(["default", "cluster-project"])("in project %s", (project) => {
    it("carries a flag change from the admin process to the frontend-eval process over NATS and Redis", async () => {
      if (project !== "default") await vexil.createProject(project);
      const flag = `${project}-flag`;
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
      const frontend = await vexil.createApiToken({ type: "frontend", projects: [project] });
      const client = await vexil.createApiToken({ type: "client", projects: [project] });

      const served = async () => {
        const toggles = await vexil.api("/api/frontend?userId=u1", { token: frontend });
        const features = await vexil.api("/api/client/features", { token: client });
        return (
          toggles.ok &&
          features.ok &&
          (await toggles.json()).toggles.some((t: { name: string }) => t.name === flag) &&
          (await features.json()).features.some((f: { name: string; enabled: boolean }) => f.name === flag && f.enabled)
        );
      };
      expect(await waitFor(served, 15_000, 50)).toBe(true);
    }, 30_000);
  });

  it("recovers when the admin process is killed and started again", async () => {
    process.kill(vexil.process.servicePid("admin"), "SIGKILL");

    const down = await waitFor(async () => (await strategies()).status === 503, 10_000, 50);
    expect(down).toBe(true);
    const body = await (await strategies()).json();
    expect(body).toMatchObject({ name: "NotReady" });

    const back = await waitFor(async () => (await strategies()).status === 200, 60_000, 200);
    expect(back).toBe(true);
    expect(vexil.process.output()).toMatch(/\[cluster\] admin exited \(SIGKILL\); starting it again/);
  }, 90_000);
});
