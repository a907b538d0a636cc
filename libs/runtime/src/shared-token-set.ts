import { TokenSet, type TokenGrant } from "@vexil/auth";
import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";

/** Where the owner of API tokens (admin) shares the grants and announces changes. */
export const tokenGrantsKey = "tokens:grants";
export const tokenGrantsChanged = "tokens.changed";
/** Every service reports which tokens it admitted (digests only, batched) so admin can set `seenAt`. */
export const tokensSeen = "tokens.seen";

export interface TokensSeen {
  digests: string[];
}

/** Admin side: replace the shared grants, then tell every service to reload. */
export async function publishTokenGrants(cache: Cache, bus: Bus, grants: TokenGrant[]): Promise<void> {
  await cache.setJson(tokenGrantsKey, grants);
  bus.publish(tokenGrantsChanged, { count: grants.length });
}

export interface SharedTokenSet {
  tokens: TokenSet;
  stop(): void;
}

/**
 * Consumer side: a token set filled from the cache and reloaded on every announced change. Tokens
 * it admits are reported on `tokens.seen` at most once per `reportUseEveryMs`.
 */
export async function openSharedTokenSet(
  cache: Cache,
  bus: Bus,
  { reportUseEveryMs = 1000 }: { reportUseEveryMs?: number } = {},
): Promise<SharedTokenSet> {
  const used = new Set<string>();
  const reportUse = () => {
    if (used.size === 0) return;
    const report: TokensSeen = { digests: [...used] };
    used.clear();
    bus.publish(tokensSeen, report);
  };
  const tokens = new TokenSet(
    { loadAll: async () => (await cache.getJson<TokenGrant[]>(tokenGrantsKey)) ?? [] },
    { onUse: (grant) => used.add(grant.digest) },
  );
  const subscription: Subscription = bus.subscribe(tokenGrantsChanged, () => tokens.refresh());
  const timer = setInterval(reportUse, reportUseEveryMs);
  timer.unref();
  await tokens.refresh();
  return {
    tokens,
    stop: () => {
      clearInterval(timer);
      reportUse();
      subscription.unsubscribe();
    },
  };
}
