import { topics, type AddonConfig, type DomainEvent } from "@vexil/contracts";
import type { Bus, Subscription } from "@vexil/bus";
import type { Logger } from "@vexil/logger";

/** Whether an addon takes an event: enabled, subscribed to its type, and in scope (empty = all). */
export function addonTakes(addon: AddonConfig, event: DomainEvent): boolean {
  return (
    addon.enabled &&
    addon.events.includes(event.type) &&
    inScope(addon.projects, event.project) &&
    inScope(addon.environments, event.environment)
  );
}

/** An empty list (or `*`) takes everything; an event without the field matches only that. */
function inScope(list: string[], value: string | null): boolean {
  if (list.length === 0 || list.includes("*")) return true;
  return value !== null && list.includes(value);
}

/**
 * The addon configurations, owned by admin and fetched over the bus. Refreshed when admin announces
 * a change and whenever an `addon-config-*` event comes through the stream, so an event that
 * follows a change in the stream is always matched against the changed configuration.
 */
export class AddonConfigs {
  private addons: AddonConfig[] | null = null;
  /** Fetches run one after another, so a later fetch never loses to an earlier, slower one. */
  private chain: Promise<unknown> = Promise.resolve();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  start(): void {
    const refresh = () => void this.refresh().catch((err) => this.log.warn({ err }, "could not refresh addon configurations"));
    // Change notices sent while NATS was away are lost: fetch again once it is back.
    this.subscriptions = [this.bus.subscribe(topics.addonsChanged, refresh), this.bus.onReconnect(refresh)];
    // At a cluster start admin may come up after this service: not an error, the list is fetched
    // again with the first event and on every change admin announces.
    this.refresh().catch((err: unknown) =>
      this.log.debug({ reason: err instanceof Error ? err.message : String(err) }, "addon configurations not fetched yet"),
    );
  }

  /** Stops listening for changes and waits for a fetch under way, so none is left on a closing bus. */
  async stop(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    await this.chain.catch(() => undefined);
  }

  /** Fetches the list from admin; rejects when admin does not answer. */
  refresh(): Promise<AddonConfig[]> {
    const next = this.chain
      .catch(() => undefined)
      .then(async () => {
        const { addons } = await this.bus.request(topics.addonsList, {});
        this.addons = addons;
        return addons;
      });
    this.chain = next;
    return next;
  }

  /** The current list, fetched first if it never was. */
  async current(): Promise<AddonConfig[]> {
    return this.addons ?? this.refresh();
  }

  /** Last known configuration of one addon (undefined once deleted). */
  async get(id: number): Promise<AddonConfig | undefined> {
    return (await this.current()).find((a) => a.id === id);
  }
}
