import type { UsageReport } from "@vexil/contracts";
import type { UsageDocument, UsageStore } from "./usage-store.js";

const hourMs = 3_600_000;
const startOfHour = (time: number) => new Date(Math.floor(time / hourMs) * hourMs);

export interface EnvironmentUsage {
  featureName?: string;
  appName?: string;
  environment: string;
  timestamp: string;
  yes: number;
  no: number;
  variants?: Record<string, number>;
}

/**
 * SDK usage counts per flag, environment, application and hour, added from frontend-eval's reports
 * (one report counted once) and read in Unleash's shapes.
 */
export class UsageService {
  /** Reports are stored one after another: each is one transaction over the counts it touches. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { usage: UsageStore; clock: () => Date }) {}

  record(report: UsageReport): Promise<boolean> {
    const stored = this.queue.then(() => this.deps.usage.add(report, this.deps.clock()));
    this.queue = stored.catch(() => undefined);
    return stored;
  }

  /** `lastHourUsage`: the hour now running and the one before, summed per environment; and the applications seen. */
  async summary(feature: string) {
    const now = this.deps.clock().getTime();
    const [recent, seenApplications] = await Promise.all([
      this.deps.usage.forFeature(feature, startOfHour(now - hourMs)),
      this.deps.usage.applicationsOf(feature),
    ]);
    const byEnvironment = new Map<string, EnvironmentUsage>();
    for (const doc of recent) {
      const entry = byEnvironment.get(doc.environment) ?? {
        environment: doc.environment,
        timestamp: doc.hour.toISOString(),
        yes: 0,
        no: 0,
      };
      entry.yes += doc.yes;
      entry.no += doc.no;
      if (doc.hour.toISOString() > entry.timestamp) entry.timestamp = doc.hour.toISOString();
      byEnvironment.set(doc.environment, entry);
    }
    const lastHourUsage = [...byEnvironment.values()].sort((a, b) => a.environment.localeCompare(b.environment));
    return { version: 1 as const, maturity: "stable", featureName: feature, lastHourUsage, seenApplications };
  }

  /** Every stored hour of the last `hoursBack` (default 24), per environment and application. */
  async raw(feature: string, hoursBack = 24) {
    const since = startOfHour(this.deps.clock().getTime() - (hoursBack - 1) * hourMs);
    const docs = await this.deps.usage.forFeature(feature, since);
    return { version: 1 as const, maturity: "stable", data: docs.map(toEntry) };
  }
}

function toEntry(doc: UsageDocument): EnvironmentUsage {
  return {
    featureName: doc.feature,
    appName: doc.appName,
    environment: doc.environment,
    timestamp: doc.hour.toISOString(),
    yes: doc.yes,
    no: doc.no,
    variants: doc.variants,
  };
}
