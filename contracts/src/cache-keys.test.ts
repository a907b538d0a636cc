import { describe, expect, it } from "vitest";
import { cacheKeys } from "./cache-keys.js";

/**
 * Every key in the shared cache, as a deployment's Redis holds it (before REDIS_KEY_PREFIX). A key
 * renamed here is a key every running replica stops finding until all are upgraded: change one only
 * with that in mind, and add each new key to this table.
 */
const everyKey: Record<keyof typeof cacheKeys, string> = {
  snapshotIndex: cacheKeys.snapshotIndex("production"),
  snapshotFeature: cacheKeys.snapshotFeature("production", "new-checkout"),
  snapshotSegments: cacheKeys.snapshotSegments("production"),
  snapshotNames: cacheKeys.snapshotNames("production"),
  snapshotEnvironments: cacheKeys.snapshotEnvironments,
  tokenGrants: cacheKeys.tokenGrants,
  signalEndpoints: cacheKeys.signalEndpoints,
  loginRate: cacheKeys.loginRate("203.0.113.7", 29_000_000),
  loginFailures: cacheKeys.loginFailures("q0GjGm0"),
  loginLock: cacheKeys.loginLock("q0GjGm0"),
  samlRequest: cacheKeys.samlRequest("_4f2a"),
  samlAssertion: cacheKeys.samlAssertion("_9c1e"),
  oidcSignIn: cacheKeys.oidcSignIn("k3Yp0"),
  signalRate: cacheKeys.signalRate("7", 1_717_200_000),
};

describe("cache keys", () => {
  it("spells every key as deployments hold it", () => {
    expect(everyKey).toEqual({
      snapshotIndex: "snapshot:production",
      snapshotFeature: "snapshot:production:feature:new-checkout",
      snapshotSegments: "snapshot:production:segments",
      snapshotNames: "snapshot:production:names",
      snapshotEnvironments: "snapshot-environments",
      tokenGrants: "tokens:grants",
      signalEndpoints: "signal-endpoints",
      loginRate: "login-rate:203.0.113.7:29000000",
      loginFailures: "login-failures:q0GjGm0",
      loginLock: "login-lock:q0GjGm0",
      samlRequest: "saml-request:_4f2a",
      samlAssertion: "saml-assertion:_9c1e",
      oidcSignIn: "oidc-sign-in:k3Yp0",
      signalRate: "signal-rate:7:1717200000",
    });
  });

  it("gives each kind of key a prefix of its own, so no two kinds can meet", () => {
    const kinds = Object.values(everyKey).map((key) => key.split(":")[0]);
    const snapshotKinds = ["snapshotIndex", "snapshotFeature", "snapshotSegments", "snapshotNames"];
    const others = Object.entries(everyKey).filter(([kind]) => !snapshotKinds.includes(kind));
    // The snapshot's entries share `snapshot:<environment>` and differ after it; every other kind has its own first token.
    expect(new Set(others.map(([, key]) => key.split(":")[0])).size).toBe(others.length);
    expect(kinds.filter((first) => first === "snapshot")).toHaveLength(snapshotKinds.length);
  });
});
