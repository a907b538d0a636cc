import { TokenSet, type TokenGrant, type TokenGrantSource } from "@vexil/auth";
import { isNoResponders, type Bus, type Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import type { ReadinessCheck } from "@vexil/http";
import type { Logger } from "@vexil/logger";
import { cacheKeys, tokenGrantsSchema, topics, type TokensSeen } from "@vexil/contracts";

/**
 * Admin side: replace the shared grants, then tell every service to reload. The announcement goes
 * out even when the cache is away: readers then ask the owner directly.
 */
export async function publishTokenGrants(cache: Cache, bus: Bus, grants: TokenGrant[]): Promise<void> {
  try {
    await cache.setJson(cacheKeys.tokenGrants, grants);
  } finally {
    bus.publish(topics.tokensChanged, { count: grants.length });
  }
}

/**
 * Reader side: the grants from the cache, or, when the cache does not have them (a Redis that
 * restarted empty) or does not answer, from the owner over the bus. Never an empty set for a
 * missing one: that would lock every SDK out.
 */
export function sharedTokenGrants(cache: Cache, bus: Bus, { requestTimeoutMs = 3000 } = {}): TokenGrantSource {
  return {
    async loadAll() {
      const cached = await cache.getJson(cacheKeys.tokenGrants).catch(() => null);
      const parsed = tokenGrantsSchema.safeParse(cached);
      if (cached !== null && parsed.success) return parsed.data;
      return bus.request(topics.tokenGrants, {}, { timeoutMs: requestTimeoutMs });
    },
  };
}

export interface SharedTokenSet {
  tokens: TokenSet;
  /** Not ready until the grants were loaded once. */
  readiness: ReadinessCheck;
  stop(): void;
}

/**
 * A token set filled from `source` (by default the shared grants) and reloaded on every announced
 * change and whenever the bus or the cache comes back after an outage (announcements sent meanwhile
 * are lost). A failed load keeps the grants held and is retried until one succeeds. Tokens it
 * admits are reported on `tokens.seen` at most once per `reportUseEveryMs`.
 */
export async function openSharedTokenSet(
  cache: Cache,
  bus: Bus,
  {
    reportUseEveryMs = 1000,
    retryEveryMs = 2000,
    source = sharedTokenGrants(cache, bus),
    logger,
  }: { reportUseEveryMs?: number; retryEveryMs?: number; source?: TokenGrantSource; logger?: Logger } = {},
): Promise<SharedTokenSet> {
  const used = new Set<string>();
  const reportUse = () => {
    if (used.size === 0) return;
    const report: TokensSeen = { digests: [...used] };
    used.clear();
    try {
      bus.publish(topics.tokensSeen, report);
    } catch (err) {
      logger?.warn({ err }, "could not report token use");
    }
  };
  const tokens = new TokenSet(source, { onUse: (grant) => used.add(grant.digest) });
  let loaded = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const reload = async (): Promise<void> => {
    clearTimeout(retry);
    try {
      await tokens.refresh();
      loaded = true;
    } catch (err) {
      // Before admin has started (a first start, or a service up before admin) nobody answers yet:
      // expected, and admin announces the grants once it runs.
      if (!loaded && isNoResponders(err)) {
        logger?.info("API token grants: admin is not answering yet; loading them once it does");
      } else {
        logger?.warn({ err }, "could not load the API token grants; keeping the ones held and retrying");
      }
      if (!stopped) retry = setTimeout(() => void reload(), retryEveryMs);
    }
  };
  const subscriptions: Subscription[] = [
    bus.subscribe(topics.tokensChanged, () => reload()),
    bus.onReconnect(() => void reload()),
    cache.onReconnect(() => void reload()),
  ];
  const timer = setInterval(reportUse, reportUseEveryMs);
  timer.unref();
  await reload();
  return {
    tokens,
    readiness: {
      name: "tokens",
      check: async () => {
        if (!loaded) throw new Error("API token grants not loaded yet");
      },
    },
    stop: () => {
      stopped = true;
      clearTimeout(retry);
      clearInterval(timer);
      reportUse();
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}
