import { describe, expect, it } from "vitest";
import { createTokenSecret, tokenDigest, type TokenGrant } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys } from "@vexil/contracts";
import { openSharedTokenSet, publishTokenGrants } from "./shared-token-set.js";

const grantFor = (secret: string): TokenGrant => ({
  digest: tokenDigest(secret),
  tokenName: "ci",
  type: "client",
  environment: "development",
  projects: ["default"],
  expiresAt: null,
});

describe("shared token set", () => {
  it("hydrates from the cache and follows announced changes", async () => {
    const cache = createMemoryCache();
    const bus = createMemoryBus();
    const first = createTokenSecret({ projects: ["default"], environment: "development" });
    const second = createTokenSecret({ projects: ["default"], environment: "development" });
    await publishTokenGrants(cache, bus, [grantFor(first)]);

    const shared = await openSharedTokenSet(cache, bus);
    expect(shared.tokens.lookup(first)?.tokenName).toBe("ci");
    expect(shared.tokens.lookup(second)).toBeUndefined();

    await publishTokenGrants(cache, bus, [grantFor(second)]);
    await new Promise((r) => setTimeout(r, 10));
    expect(shared.tokens.lookup(first)).toBeUndefined();
    expect(shared.tokens.lookup(second)?.tokenName).toBe("ci");
    shared.stop();
  });

  it("never stores secrets in the cache", async () => {
    const cache = createMemoryCache();
    const secret = createTokenSecret({ projects: ["*"], environment: "*" });
    await publishTokenGrants(cache, createMemoryBus(), [grantFor(secret)]);
    expect(await cache.get(cacheKeys.tokenGrants)).not.toContain(secret.split(".")[1]);
  });
});
