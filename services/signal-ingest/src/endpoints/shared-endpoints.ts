import type { Bus, Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import { sharedSignalEndpoints, type SharedSignalEndpoint } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";

export interface KnownToken {
  id: number;
  name: string;
  endpointId: number;
}

/**
 * The signal endpoints and token digests admin shares, held in memory: hydrated from the cache at
 * boot, reloaded on each announced change, and on a miss (an announcement may be lost, as core
 * NATS does not keep them), so a token created a moment ago is recognised at once.
 */
export class SharedEndpoints {
  private byName = new Map<string, SharedSignalEndpoint>();
  private byDigest = new Map<string, KnownToken>();
  private loading: Promise<void> | null = null;
  private subscription: Subscription | undefined;

  constructor(
    private readonly cache: Cache,
    private readonly logger: Logger,
  ) {}

  static async open(cache: Cache, bus: Bus, logger: Logger): Promise<SharedEndpoints> {
    const shared = new SharedEndpoints(cache, logger);
    shared.subscription = bus.subscribe(sharedSignalEndpoints.changedSubject, () => shared.refresh());
    await shared.refresh();
    return shared;
  }

  /** One load at a time; callers arriving meanwhile share it. */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = null));
    return this.loading;
  }

  async endpoint(name: string): Promise<SharedSignalEndpoint | undefined> {
    if (!this.byName.has(name)) await this.refresh();
    return this.byName.get(name);
  }

  async token(digest: string): Promise<KnownToken | undefined> {
    if (!this.byDigest.has(digest)) await this.refresh();
    return this.byDigest.get(digest);
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  private async load(): Promise<void> {
    const raw = await this.cache.getJson(sharedSignalEndpoints.cacheKey);
    const parsed = sharedSignalEndpoints.schema.safeParse(raw ?? []);
    if (!parsed.success) {
      this.logger.error({ issues: parsed.error.issues }, "shared signal endpoints are malformed; keeping the previous ones");
      return;
    }
    this.byName = new Map(parsed.data.map((e) => [e.name, e]));
    this.byDigest = new Map(
      parsed.data.flatMap((e) => e.tokens.map((t) => [t.digest, { id: t.id, name: t.name, endpointId: e.id }] as const)),
    );
  }
}
