import { TokenSet, type TokenGrant } from "@vexil/auth";
import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";

/** Where the owner of API tokens (admin) shares the grants and announces changes. */
export const tokenGrantsKey = "tokens:grants";
export const tokenGrantsChanged = "tokens.changed";

/** Admin side: replace the shared grants, then tell every service to reload. */
export async function publishTokenGrants(cache: Cache, bus: Bus, grants: TokenGrant[]): Promise<void> {
  await cache.setJson(tokenGrantsKey, grants);
  bus.publish(tokenGrantsChanged, { count: grants.length });
}

export interface SharedTokenSet {
  tokens: TokenSet;
  stop(): void;
}

/** Consumer side: a token set filled from the cache and reloaded on every announced change. */
export async function openSharedTokenSet(cache: Cache, bus: Bus): Promise<SharedTokenSet> {
  const tokens = new TokenSet({ loadAll: async () => (await cache.getJson<TokenGrant[]>(tokenGrantsKey)) ?? [] });
  const subscription: Subscription = bus.subscribe(tokenGrantsChanged, () => tokens.refresh());
  await tokens.refresh();
  return { tokens, stop: () => subscription.unsubscribe() };
}
