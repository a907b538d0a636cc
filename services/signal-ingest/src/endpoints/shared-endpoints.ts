import { isNoResponders, type Bus } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import { sharedSignalEndpointsSchema, cacheKeys, topics, type SharedSignalEndpoint } from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";

export interface KnownToken {
  id: number;
  name: string;
  endpointId: number;
}

/**
 * The signal endpoints and token digests admin shares, held in memory: hydrated from the cache at
 * boot, reloaded on each announced change, after the bus or the cache comes back from an outage,
 * and on a miss (an announcement may be lost, as core NATS does not keep them), so a token created
 * a moment ago is recognised at once. A cache without the list (a Redis restarted empty) is no
 * reason to refuse every signal: the list is then asked of admin, which owns it.
 */
export class SharedEndpoints {
  private byName = new Map<string, SharedSignalEndpoint>();
  private byDigest = new Map<string, KnownToken>();
  private loading: Promise<void> | null = null;
  private loaded = false;
  private subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly cache: Cache,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  static async open(cache: Cache, bus: Bus, logger: Logger): Promise<SharedEndpoints> {
    const shared = new SharedEndpoints(cache, bus, logger);
    const reload = () =>
      void shared.refresh().catch((err: unknown) => {
        // Before admin has started nobody answers yet: expected, and admin announces the list once it runs.
        if (!shared.loaded && isNoResponders(err)) logger.info("signal endpoints: admin is not answering yet; loading them once it does");
        else logger.warn({ err }, "could not load the signal endpoints");
      });
    shared.subscriptions = [bus.subscribe(topics.signalEndpointsChanged, reload), bus.onReconnect(reload), cache.onReconnect(reload)];
    reload();
    return shared;
  }

  /** One load at a time; callers arriving meanwhile share it. */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = null));
    return this.loading;
  }

  async endpoint(name: string): Promise<SharedSignalEndpoint | undefined> {
    if (!this.byName.has(name)) await this.refreshOnMiss();
    return this.byName.get(name);
  }

  async token(digest: string): Promise<KnownToken | undefined> {
    if (!this.byDigest.has(digest)) await this.refreshOnMiss();
    return this.byDigest.get(digest);
  }

  /** Whether the list was loaded once. */
  get ready(): boolean {
    return this.loaded;
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  /** A failed reload keeps the list held; with none held yet, the caller is told to come back. */
  private async refreshOnMiss(): Promise<void> {
    try {
      await this.refresh();
    } catch (err) {
      if (!this.loaded) throw new NotReady("The signal endpoints are not loaded yet; try again shortly");
      this.logger.warn({ err }, "could not reload the signal endpoints; using the ones held");
    }
  }

  private async load(): Promise<void> {
    const cached = await this.cache.getJson(cacheKeys.signalEndpoints).catch(() => null);
    let endpoints: SharedSignalEndpoint[];
    if (cached === null) {
      // The reply is validated by the bus; a malformed one rejects and the endpoints held stay.
      endpoints = await this.bus.request(topics.signalEndpoints, {}, { timeoutMs: 3000 });
    } else {
      const parsed = sharedSignalEndpointsSchema.safeParse(cached);
      if (!parsed.success) {
        this.logger.error({ issues: parsed.error.issues }, "shared signal endpoints are malformed; keeping the previous ones");
        return;
      }
      endpoints = parsed.data;
    }
    this.byName = new Map(endpoints.map((e) => [e.name, e]));
    this.byDigest = new Map(
      endpoints.flatMap((e) => e.tokens.map((t) => [t.digest, { id: t.id, name: t.name, endpointId: e.id }] as const)),
    );
    this.loaded = true;
  }
}
