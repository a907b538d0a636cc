import type { TokenGrant } from "@vexil/auth";
import type { Bus } from "@vexil/bus";
import { topics, type ClientInstanceSeen, type ClientMetrics, type ClientRegistration } from "@vexil/contracts";

type SdkType = ClientInstanceSeen["sdkType"];

/** Who is calling: the token behind the request, the environment it reads and the caller's address. */
export interface Caller {
  grant: TokenGrant;
  environment: string;
  clientIp: string | undefined;
}

/** Unleash files an SDK that names no instance under `default`. */
const defaultInstanceId = "default";

function startedAt(started: ClientRegistration["started"]): string | undefined {
  if (started === undefined) return undefined;
  const date = new Date(started);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function connectViaOf(registration: ClientRegistration): ClientInstanceSeen["connectVia"] {
  const via = (registration as { connectVia?: unknown }).connectVia;
  if (!Array.isArray(via)) return undefined;
  return via
    .filter(
      (hop): hop is { appName: string; instanceId: string } => typeof hop?.appName === "string" && typeof hop?.instanceId === "string",
    )
    .map(({ appName, instanceId }) => ({ appName, instanceId }));
}

/**
 * Collects the SDK instances that register or post metrics and tells the admin once per interval,
 * one entry per (appName, instanceId): a metrics post after a registration in the same interval
 * keeps the registration's details and moves `lastSeen` on.
 */
export class ClientInstances {
  private pending = new Map<string, ClientInstanceSeen>();
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => Date;

  constructor(
    private readonly deps: {
      bus: Bus;
      /** Told each registration (Prometheus's `client_sdk_versions`). */
      onRegistered?: (registration: ClientRegistration) => void;
      clock?: () => Date;
      flushIntervalMs?: number;
    },
  ) {
    this.clock = deps.clock ?? (() => new Date());
    this.timer = setInterval(() => this.flush(), deps.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  registered(registration: ClientRegistration, sdkType: SdkType, caller: Caller): void {
    this.deps.onRegistered?.(registration);
    this.note({
      ...this.identity(registration, sdkType, caller),
      sdkVersion: registration.sdkVersion,
      strategies: registration.strategies,
      started: startedAt(registration.started),
      interval: registration.interval,
      connectVia: connectViaOf(registration),
    });
  }

  sentMetrics(metrics: ClientMetrics, sdkType: SdkType, caller: Caller, featuresUsed: readonly string[]): void {
    const seenToggles = featuresUsed.length > 0 ? [...featuresUsed] : undefined;
    this.note({ ...this.identity(metrics, sdkType, caller), seenToggles });
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const instances = [...this.pending.values()];
    this.pending = new Map();
    this.deps.bus.publish(topics.clientInstancesSeen, { instances });
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }

  private identity(
    body: { appName: string; instanceId?: string },
    sdkType: SdkType,
    { grant, environment, clientIp }: Caller,
  ): ClientInstanceSeen {
    return {
      appName: body.appName,
      instanceId: body.instanceId || defaultInstanceId,
      sdkType,
      environment,
      projects: grant.projects,
      clientIp,
      lastSeen: this.clock().toISOString(),
    };
  }

  private note(seen: ClientInstanceSeen): void {
    const key = JSON.stringify([seen.appName, seen.instanceId]);
    const earlier = this.pending.get(key);
    if (!earlier) {
      this.pending.set(key, withoutUndefined(seen));
      return;
    }
    const seenToggles = [...new Set([...(earlier.seenToggles ?? []), ...(seen.seenToggles ?? [])])];
    this.pending.set(key, {
      ...earlier,
      ...withoutUndefined(seen),
      ...(seenToggles.length > 0 ? { seenToggles } : {}),
    });
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
