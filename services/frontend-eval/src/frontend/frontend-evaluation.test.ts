import { describe, expect, it } from "vitest";
import type { ClientFeature, ClientSegment } from "@vexil/contracts";
import { EnvironmentSnapshot, nextSnapshot } from "../snapshots/environment-snapshot.js";
import { frontendContext, frontendToggles, frontendTogglesText } from "./frontend-evaluation.js";
import { clientFeature } from "../client-feature.fixture.js";

const segments: ClientSegment[] = [{ id: 1, name: "vips", constraints: [{ contextName: "userId", operator: "IN", values: ["vip"] }] }];
const features = [
  clientFeature("always"),
  clientFeature("off", { enabled: false }),
  clientFeature("watched", { impressionData: true }),
  clientFeature('für-alle-"quoted"'),
  clientFeature("elsewhere", { project: "other" }),
  clientFeature("vips-only", { strategies: [{ name: "default", constraints: [], parameters: {}, segments: [1] }] }),
  clientFeature("half", {
    strategies: [{ name: "flexibleRollout", constraints: [], parameters: { rollout: "50", stickiness: "userId", groupId: "half" } }],
  }),
  clientFeature("colours", {
    variants: [
      { name: "red", weight: 500, weightType: "variable", stickiness: "userId", payload: { type: "json", value: '{"hex":"#f00"}' } },
      { name: "blue", weight: 500, weightType: "variable", stickiness: "userId", payload: { type: "string", value: "grün 😀" } },
    ],
  }),
  clientFeature("strategy-variants", {
    strategies: [
      {
        name: "default",
        constraints: [],
        parameters: {},
        variants: [{ name: "only", weight: 1000, weightType: "variable", stickiness: "default", payload: { type: "string", value: "x" } }],
      },
    ],
  }),
  clientFeature("child-of-half", { dependencies: [{ feature: "half" }] }),
  clientFeature("child-of-off", { dependencies: [{ feature: "off", enabled: false }] }),
  clientFeature("fixed-with-zero", {
    variants: [
      { name: "never", weight: 0, weightType: "fix", stickiness: "userId" },
      { name: "always", weight: 1000, weightType: "variable", stickiness: "userId" },
    ],
  }),
].sort((a, b) => (a.name < b.name ? -1 : 1));

const stored = {
  environment: "development",
  revision: 1,
  features: features.map((f) => [f.name, JSON.stringify(f)] as const),
  segments,
};
const { snapshot } = EnvironmentSnapshot.from(stored);
const options = { random: () => 0.42, now: () => 0 };

describe("frontendTogglesText", () => {
  it("writes exactly what serialising the toggles writes, for every user and scope", () => {
    const scopes = [
      { projects: undefined, namePrefix: undefined },
      { projects: ["default"], namePrefix: undefined },
    ];
    for (const userId of ["vip", "u1", "u2", "u3", "u4", "someone-else"]) {
      for (const scope of scopes) {
        const context = frontendContext({ userId, sessionId: "s" }, "127.0.0.1");
        const expected = JSON.stringify({ toggles: frontendToggles(snapshot, context, scope, options) });
        // Twice: the second answer comes from the pieces kept for this snapshot.
        expect(frontendTogglesText(snapshot, context, scope, options)).toEqual({ json: expected, bytes: Buffer.byteLength(expected) });
        expect(frontendTogglesText(snapshot, context, scope, options)).toEqual({ json: expected, bytes: Buffer.byteLength(expected) });
      }
    }
  });

  it("answers each patched snapshot as serialising its toggles does, reusing the pieces of the flags a change left alone", () => {
    const scope = { projects: ["default"], namePrefix: undefined };
    const context = frontendContext({ userId: "u3", sessionId: "s" }, "127.0.0.1");
    // Its own snapshot: `nextSnapshot` hands the held one's maps over to the next.
    let current = EnvironmentSnapshot.from(stored).snapshot;
    // Switch off, move out of the scope, become context-dependent, come back as it was: each a new snapshot.
    const steps: ClientFeature[] = [
      clientFeature("always", { enabled: false }),
      clientFeature("always", { project: "other" }),
      clientFeature("always", {
        strategies: [{ name: "flexibleRollout", constraints: [], parameters: { rollout: "50", stickiness: "userId", groupId: "a" } }],
      }),
      clientFeature("half", { enabled: false }),
      clientFeature("always"),
    ];
    for (const [index, changed] of steps.entries()) {
      expect(frontendTogglesText(current, context, scope, options).json).toBe(
        JSON.stringify({ toggles: frontendToggles(current, context, scope, options) }),
      );
      current = nextSnapshot(current, {
        revision: index + 2,
        features: new Map([[changed.name, JSON.stringify(changed)]]),
        segments,
      }).snapshot;
      const expected = JSON.stringify({ toggles: frontendToggles(current, context, scope, options) });
      expect(frontendTogglesText(current, context, scope, options).json).toBe(expected);
    }
  });

  it("leaves out disabled flags and flags outside the scope", () => {
    const context = frontendContext({ userId: "nobody", sessionId: "s" }, undefined);
    const names = JSON.parse(
      frontendTogglesText(snapshot, context, { projects: ["default"], namePrefix: undefined }, options).json,
    ).toggles.map((toggle: { name: string }) => toggle.name);
    expect(names).not.toContain("off");
    expect(names).not.toContain("elsewhere");
    expect(names).not.toContain("vips-only");
    expect(names).toContain("always");
  });
});

describe("frontend context", () => {
  it("builds the frontend context as Unleash does", () => {
    const context = frontendContext({ userId: "u", properties: { plan: "pro" }, tier: "gold", nested: { x: 1 } }, "10.0.0.1");
    expect(context).toMatchObject({ userId: "u", remoteAddress: "10.0.0.1", properties: { plan: "pro", tier: "gold" } });
    expect(context.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(frontendContext({ sessionId: "s", remoteAddress: "1.1.1.1" }, "10.0.0.1")).toMatchObject({
      sessionId: "s",
      remoteAddress: "1.1.1.1",
    });
  });
});
