import { describe, expect, it } from "vitest";
import type { TokenGrant } from "@vexil/auth";
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
