import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Unleash } from "unleash-client";
import { flagAdmin } from "../src/flag-admin.js";
import { expectJson, startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool } from "../src/sdks.js";

/**
 * The same admin calls must bucket users as Unleash 8.2.0 does. Unleash spreads what the `fix`
 * variants leave over the `variable` ones in the given order, then stores and serves the list
 * sorted by name; the SDKs hand out weight ranges in list order, so keeping the given order put
 * users into other variants. The expected lists are what unleash-server 8.2.0 answered to these
 * exact calls (the parity harness, `npm run test:parity`, compares the two servers live).
 */
const stickiness = "default";
const variable = (name: string, weight: number) => ({ name, weight, weightType: "variable", stickiness });
const fix = (name: string, weight: number) => ({ name, weight, weightType: "fix", stickiness });

const experimentVariants = [variable("control", 334), variable("blue", 333), variable("green", 333)];
const servedExperimentVariants = [variable("blue", 333), variable("control", 334), variable("green", 333)];
const mixedStrategyVariants = [variable("control", 334), variable("blue", 333), fix("green", 100), variable("Alpha", 5)];
const servedMixedStrategyVariants = [variable("Alpha", 300), variable("blue", 300), variable("control", 300), fix("green", 100)];
const environmentVariants = [variable("z", 0), fix("b", 200), variable("a", 0), variable("m", 0)];
const servedEnvironmentVariants = [variable("a", 267), fix("b", 200), variable("m", 266), variable("z", 267)];

let vexil: TestSystem;
const sdks = sdkPool();
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(async () => {
  sdks.stopAll();
  await vexil?.stop();
});

interface ServedFeature {
  name: string;
  variants: unknown[];
  strategies: Array<{ variants: unknown[] }>;
}

describe.each(["default", "variant-order-fresh"])("in project %s", (project) => {
  const flag = (base: string) => `${project}-${base}`;
  const rollout = (groupId: string) => ({ name: "flexibleRollout", parameters: { rollout: "100", stickiness, groupId } });
  let clientToken: string;
  let sdk: Unleash;

  beforeAll(async () => {
    if (project !== "default") await vexil.createProject(project);
    clientToken = project === "default" ? vexil.tokens.client : await vexil.createApiToken({ type: "client", projects: [project] });
    const admin = flagAdmin((path, init) => vexil.api(path, init), project);
    for (const [base, variants] of [
      ["experiment", experimentVariants],
      // The same split given in Unleash's order, sharing the experiment's group id (the variant hash seed).
      ["experiment-presorted", servedExperimentVariants],
      ["mixed", mixedStrategyVariants],
    ] as const) {
      await admin.createFeature(flag(base));
      await admin.addStrategy(flag(base), "development", { ...rollout(flag("experiment")), variants: [...variants] });
      await admin.setEnabled(flag(base), "development", true);
    }
    await admin.createFeature(flag("environment"));
    await admin.setVariants(flag("environment"), "development", environmentVariants);
    await admin.setEnabled(flag("environment"), "development", true);
    sdk = await sdks.serverSdk(vexil, clientToken, "polling");
  });

  const adminFeature = (name: string) => `/api/admin/projects/${project}/features/${name}`;

  it("stores strategy variants spread and sorted, as the admin API answers them", async () => {
    const strategies = await expectJson(await vexil.api(`${adminFeature(flag("mixed"))}/environments/development/strategies`), 200);
    expect(strategies[0].variants).toEqual(servedMixedStrategyVariants);
    const updated = await vexil.api(`${adminFeature(flag("mixed"))}/environments/development/strategies/${strategies[0].id}`, {
      method: "PUT",
      body: { ...rollout(flag("experiment")), variants: experimentVariants },
    });
    expect((await expectJson(updated, 200)).variants).toEqual(servedExperimentVariants);
    const restored = await vexil.api(`${adminFeature(flag("mixed"))}/environments/development/strategies/${strategies[0].id}`, {
      method: "PUT",
      body: { ...rollout(flag("experiment")), variants: mixedStrategyVariants },
    });
    expect((await expectJson(restored, 200)).variants).toEqual(servedMixedStrategyVariants);
  });

  it("stores environment variants spread in the given order, then sorted by name", async () => {
    const body = await expectJson(await vexil.api(`${adminFeature(flag("environment"))}/environments/development/variants`), 200);
    expect(body.variants).toEqual(servedEnvironmentVariants);
  });

  it("serves the SDKs the lists Unleash serves", async () => {
    const res = await vexil.api("/api/client/features", { token: clientToken });
    const served = new Map(((await expectJson(res, 200)).features as ServedFeature[]).map((f) => [f.name, f]));
    expect(served.get(flag("experiment"))?.strategies[0]?.variants).toEqual(servedExperimentVariants);
    expect(served.get(flag("mixed"))?.strategies[0]?.variants).toEqual(servedMixedStrategyVariants);
    expect(served.get(flag("environment"))?.variants).toEqual(servedEnvironmentVariants);
  });

  it("buckets each user of the real SDK exactly as the list in Unleash's order does", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const context = { userId: `user-${i}` };
      const given = sdk.getVariant(flag("experiment"), context);
      expect(given.name, context.userId).toBe(sdk.getVariant(flag("experiment-presorted"), context).name);
      seen.add(given.name);
    }
    // All three variants are handed out, so the comparison covers every weight range.
    expect([...seen].sort()).toEqual(["blue", "control", "green"]);
  });
});
