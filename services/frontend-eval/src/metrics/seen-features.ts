import type { Bus } from "@vexil/bus";
import { topics, type ClientMetrics, type FeaturesSeen } from "@vexil/contracts";

/** Names of the flags a metrics bucket reports any evaluation of. */
export function featuresUsed(metrics: ClientMetrics): string[] {
  const toggles = metrics.bucket?.toggles ?? {};
  return Object.entries(toggles)
    .filter(([, counts]) => (counts.yes ?? 0) + (counts.no ?? 0) > 0 || Object.values(counts.variants ?? {}).some((n) => n > 0))
    .map(([name]) => name);
}

/**
 * Collects the flags SDKs report using and tells the admin once per interval (one notice per
 * environment), so a thousand SDKs posting metrics cost the admin one write batch per second.
 */
export class SeenFeatures {
  private pending = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: { bus: Bus; clock?: () => Date; flushIntervalMs?: number }) {
    this.timer = setInterval(() => this.flush(), deps.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  add(environment: string, features: readonly string[]): void {
    if (features.length === 0) return;
    let set = this.pending.get(environment);
    if (!set) this.pending.set(environment, (set = new Set()));
    for (const name of features) set.add(name);
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const batches = this.pending;
    this.pending = new Map();
    const seenAt = (this.deps.clock ?? (() => new Date()))().toISOString();
    for (const [environment, names] of batches) {
      const notice: FeaturesSeen = { environment, features: [...names], seenAt };
      this.deps.bus.publish(topics.featuresSeen, notice);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
