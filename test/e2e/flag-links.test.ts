import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featureSchema } from "@vexil/contracts";
import { adminExpect } from "../src/admin-expect.js";
import { plainTextRequest, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * URLs on a flag (Unleash 7+'s feature links) through the compiled gateway, in `default` and a
 * project created while Vexil runs: added, listed on the flag, changed and removed on Unleash's
 * paths, normalized as Unleash normalizes them, with their events; refusals of bad input.
 */
let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil.stop());

const { call, get, expectError, expectGuarded } = adminExpect(() => vexil);

describe.each(["default", "links-fresh"])("links on a flag in project %s", (project) => {
  const flag = `${project}-linked`;
  const flagPath = `/api/admin/projects/${project}/features/${flag}`;
  const linksOf = async () => (await get(flagPath, featureSchema)).links;
  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project, { environments: ["development", "production"] });
    await call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
  });

  it("adds, lists, changes and removes links, with their events", async () => {
    expect(await linksOf()).toEqual([]);
    await call(`${flagPath}/link`, { method: "POST", body: { url: "github.com/acme/shop/issues/42", title: "Rollout plan" } }, 204);
    await call(`${flagPath}/link`, { method: "POST", body: { url: "https://grafana.example.com/d/checkout" } }, 204);
    const [plan, dashboard] = (await linksOf()) ?? [];
    expect([plan, dashboard]).toEqual([
      { id: expect.any(String), url: "https://github.com/acme/shop/issues/42", title: "Rollout plan" },
      { id: expect.any(String), url: "https://grafana.example.com/d/checkout", title: null },
    ]);

    await call(
      `${flagPath}/link/${plan!.id}`,
      { method: "PUT", body: { url: "github.com/acme/shop/pull/43", title: "Pull request" } },
      204,
    );
    await call(`${flagPath}/link/${dashboard!.id}`, { method: "DELETE" }, 204);
    expect(await linksOf()).toEqual([{ id: plan!.id, url: "https://github.com/acme/shop/pull/43", title: "Pull request" }]);

    const { events } = await get(`/api/admin/events/${flag}`);
    expect((events as Array<{ type: string; data: unknown; preData: unknown }>).slice(0, 4)).toEqual([
      expect.objectContaining({ type: "feature-link-removed", preData: { url: "https://grafana.example.com/d/checkout", title: null } }),
      expect.objectContaining({
        type: "feature-link-updated",
        data: { url: "https://github.com/acme/shop/pull/43", title: "Pull request" },
        preData: { url: "https://github.com/acme/shop/issues/42", title: "Rollout plan" },
      }),
      expect.objectContaining({ type: "feature-link-added", data: { url: "https://grafana.example.com/d/checkout", title: null } }),
      expect.objectContaining({ type: "feature-link-added" }),
    ]);
  });

  it("refuses bad input with the spec's errors and changes nothing", async () => {
    const before = await linksOf();
    const bad = await expectError(
      `${flagPath}/link`,
      { method: "POST", body: { url: "javascript://x%0aalert(1)" } },
      400,
      "ValidationError",
    );
    expect(bad.details).toEqual([{ path: "body.url", message: "Only http and https links are allowed: javascript://x%0aalert(1)" }]);
    await expectError(`${flagPath}/link`, { method: "POST", body: { url: "not a url" } }, 400, "ValidationError");
    await expectError(`${flagPath}/link`, { method: "POST", body: { title: "no url" } }, 400, "ValidationError");
    await expectError(`${flagPath}/link`, plainTextRequest("POST"), 415, "ContentTypeerror");
    await expectError(
      `/api/admin/projects/${project}/features/ghost/link`,
      { method: "POST", body: { url: "example.com" } },
      404,
      "NotFoundError",
    );
    await expectError(`${flagPath}/link/no-such-link`, { method: "PUT", body: { url: "example.com" } }, 404, "NotFoundError");
    await expectError(`${flagPath}/link/no-such-link`, { method: "DELETE" }, 404, "NotFoundError");
    await expectGuarded(`${flagPath}/link`, { method: "POST", body: { url: "example.com" } });
    expect(await linksOf()).toEqual(before);

    // At most ten per flag, as in Unleash.
    for (let i = (before ?? []).length; i < 10; i++)
      await call(`${flagPath}/link`, { method: "POST", body: { url: `example.com/${i}` } }, 204);
    const tooMany = await expectError(`${flagPath}/link`, { method: "POST", body: { url: "example.com/more" } }, 403, "NoAccessError");
    expect(tooMany.message).toBe("Too many links (10) exist for this feature");
    expect(await linksOf()).toHaveLength(10);
  });
});
