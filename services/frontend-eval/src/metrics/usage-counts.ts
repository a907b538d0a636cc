import { randomUUID } from "node:crypto";
import type { Bus } from "@vexil/bus";
import { topics, type ClientMetrics, type UsageCount, type UsageReport } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";

const hourMs = 3_600_000;

/** The start of the UTC hour a bucket began in; `now` when the SDK sent no usable start. */
function hourOf(start: string | number | undefined, now: Date): string {
  const at = start === undefined ? now.getTime() : new Date(start).getTime();
  const time = Number.isFinite(at) ? at : now.getTime();
  return new Date(Math.floor(time / hourMs) * hourMs).toISOString();
}

/**
 * Adds up the yes/no/variant counts SDKs report, per environment, application, flag and hour, and
 * hands them to admin once a second as one report per environment. A report admin did not confirm
 * stays and goes again with the same batch id (admin counts a batch once), so counts are neither
 * lost while admin is away nor doubled when only its reply was lost.
 */
export class UsageCounts {
  private pending = new Map<string, Map<string, UsageCount>>();
  /** Reports sent and not yet confirmed, retried first. */
  private unconfirmed: UsageReport[] = [];
  private flushing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      bus: Bus;
      logger: Logger;
      /** Told each flag's counts as they arrive (Prometheus's `feature_toggle_usage_total`). */
      onReported?: (environment: string, appName: string, feature: string, counts: { yes: number; no: number }) => void;
      clock?: () => Date;
      flushIntervalMs?: number;
    },
  ) {
    this.timer = setInterval(() => void this.flush(), deps.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  add(environment: string, metrics: ClientMetrics): void {
    const toggles = metrics.bucket?.toggles;
    if (!toggles) return;
    const hour = hourOf(metrics.bucket?.start, (this.deps.clock ?? (() => new Date()))());
    let counts = this.pending.get(environment);
    for (const [feature, reported] of Object.entries(toggles)) {
      const yes = Math.max(0, Math.trunc(reported.yes ?? 0));
      const no = Math.max(0, Math.trunc(reported.no ?? 0));
      const variants = Object.entries(reported.variants ?? {}).filter(([, n]) => n > 0);
      if (yes === 0 && no === 0 && variants.length === 0) continue;
      this.deps.onReported?.(environment, metrics.appName, feature, { yes, no });
      if (!counts) this.pending.set(environment, (counts = new Map()));
      const key = `${metrics.appName}\u0000${feature}\u0000${hour}`;
      let count = counts.get(key);
      if (!count) counts.set(key, (count = { feature, appName: metrics.appName, hour, yes: 0, no: 0, variants: {} }));
      count.yes += yes;
      count.no += no;
      for (const [name, n] of variants) count.variants[name] = (count.variants[name] ?? 0) + Math.trunc(n);
    }
  }

  /** Sends what was gathered (and what is still unconfirmed); one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async send(): Promise<void> {
    const fresh = [...this.pending].map(([environment, counts]) => ({ batchId: randomUUID(), environment, counts: [...counts.values()] }));
    this.pending = new Map();
    const reports = [...this.unconfirmed, ...fresh];
    this.unconfirmed = [];
    for (const report of reports) {
      try {
        await this.deps.bus.request(topics.usageReport, report, { timeoutMs: 5000 });
      } catch (err) {
        this.unconfirmed.push(report);
        this.deps.logger.debug({ reason: err instanceof Error ? err.message : String(err) }, "usage counts not stored yet; sent again");
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
