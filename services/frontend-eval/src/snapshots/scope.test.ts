import { describe, expect, it } from "vitest";
import type { TokenGrant } from "@vexil/auth";
import { revisionFrom } from "../client/client-routes.js";
import { inlineSegmentsFor } from "../client/features-response.js";
import { frontendContext } from "../frontend/frontend-evaluation.js";
import { environmentFor, inScope, scopeFor } from "./scope.js";

const grant = (projects: string[], environment = "development"): TokenGrant => ({
  digest: "d",
  tokenName: "t",
  type: "client",
  environment,
  projects,
  expiresAt: null,
});

describe("scope", () => {
  it("narrows the token's projects by the query, never widening them", () => {
    expect(scopeFor(grant(["*"]), { project: ["b", "a", "a"] }).projects).toEqual(["a", "b"]);
    expect(scopeFor(grant(["a"]), { project: "b" }).projects).toEqual([]);
    expect(scopeFor(grant(["a", "b"]), {}).projects).toEqual(["a", "b"]);
    expect(scopeFor(grant(["*"]), { project: "*" }).projects).toBeUndefined();
    const scope = scopeFor(grant(["a"]), { namePrefix: "new-" });
    expect(inScope(scope, "new-x", "a")).toBe(true);
    expect(inScope(scope, "old-x", "a")).toBe(false);
    expect(inScope(scope, "new-x", "b")).toBe(false);
  });

  it("reads `default` for an all-environments token, or development without one", () => {
    expect(environmentFor(grant(["*"], "*"), (env) => env === "default")).toBe("default");
    expect(environmentFor(grant(["*"], "*"), () => false)).toBe("development");
    expect(environmentFor(grant(["*"], "production"), () => true)).toBe("production");
  });
});

describe("request parsing", () => {
  it("reads revisions from ETags and event ids, and nothing else", () => {
    expect(revisionFrom('"12"')).toBe(12);
    expect(revisionFrom('W/"7"')).toBe(7);
    expect(revisionFrom("40")).toBe(40);
    expect(revisionFrom('"abc:1:v1"')).toBeUndefined();
    expect(revisionFrom(undefined)).toBeUndefined();
  });

  it("inlines segments below client spec 4.2.0 and rejects non-versions", () => {
    expect(inlineSegmentsFor(undefined)).toBe(true);
    expect(inlineSegmentsFor("4.1.9")).toBe(true);
    expect(inlineSegmentsFor("4.2.0")).toBe(false);
    expect(inlineSegmentsFor("5.2.0")).toBe(false);
    expect(() => inlineSegmentsFor("latest")).toThrow(/Unleash-Client-Spec/);
  });

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
