import { describe, expect, it, vi } from "vitest";
import { apiTokenAuthenticator, createTokenSecret, tokenDigest, type TokenGrant } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import type { Request } from "express";
import { openSharedTokenSet, publishTokenGrants, tokensSeen, type TokensSeen } from "./shared-token-set.js";

const secret = createTokenSecret({ projects: ["*"], environment: "development" });
const grant: TokenGrant = {
  digest: tokenDigest(secret),
  tokenName: "sdk",
  type: "client",
  environment: "development",
  projects: ["*"],
  expiresAt: null,
};
const requestWith = (authorization: string) => ({ headers: { authorization } }) as Request;

describe("shared token set", () => {
  it("reloads on the announcement and reports admitted tokens by digest, batched", async () => {
    const bus = createMemoryBus();
    const cache = createMemoryCache();
    const shared = await openSharedTokenSet(cache, bus, { reportUseEveryMs: 50 });
    const reports: TokensSeen[] = [];
    bus.subscribe(tokensSeen, (payload) => void reports.push(payload as TokensSeen));

    await publishTokenGrants(cache, bus, [grant]);
    await vi.waitFor(() => expect(shared.tokens.size).toBe(1));

    const authenticator = apiTokenAuthenticator(shared.tokens);
    await authenticator.authenticate(requestWith(secret));
    await authenticator.authenticate(requestWith(secret));
    expect(await authenticator.authenticate(requestWith("*:*.unknown"))).toBeUndefined();

    await vi.waitFor(() => expect(reports).toEqual([{ digests: [grant.digest] }]));
    expect(JSON.stringify(reports)).not.toContain(secret);

    await publishTokenGrants(cache, bus, []);
    await vi.waitFor(() => expect(shared.tokens.size).toBe(0));
    shared.stop();
    await bus.close();
  });
});
