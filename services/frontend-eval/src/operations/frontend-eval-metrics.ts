import type { ClientRegistration, SnapshotUpdated } from "@vexil/contracts";
import { Counter, Gauge, Histogram, type Registry } from "@vexil/metrics";
import { degradedReasons, type DegradedReason } from "../snapshots/snapshot-freshness.js";

/** Unleash's value for an SDK detail the registration does not give. */
const notSet = "not-set";

function labelOf(value: unknown): string {
  return typeof value === "string" && value !== "" ? value : notSet;
}

/**
 * What frontend-eval shows Prometheus: SDK streams open, the snapshot revision held per
 * environment, how stale it may be and why (it stays ready while degraded), how long a change took
 * from admin's commit to being served here (both clocks are the hosts' own: across machines the
 * figure is only as good as their time sync), and what the SDKs report: their flag evaluations and
 * their names and versions, under Unleash's metric names and labels.
 */
export function registerFrontendEvalMetrics(
  registry: Registry,
  sources: {
    streamingConnections(): number;
    stalledStreams(): number;
    revisions(): Array<[environment: string, revision: number]>;
    ages(): Array<[environment: string, seconds: number]>;
    reasons(): Array<{ reason: DegradedReason }>;
  },
  clock: () => number = Date.now,
) {
  new Gauge({
    name: "vexil_sdk_streaming_connections",
    help: "SDK streaming connections (/api/client/streaming) open now",
    registers: [registry],
    collect() {
      this.set(sources.streamingConnections());
    },
  });
  new Counter({
    name: "vexil_sdk_streams_stalled_total",
    help: "SDK streams closed because their client stopped reading (more changes waiting unsent than SDK_STREAM_MAX_UNSENT_BYTES)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.stalledStreams());
    },
  });
  new Gauge({
    name: "vexil_snapshot_revision",
    help: "Revision of the flag snapshot served, per environment",
    labelNames: ["environment"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [environment, revision] of sources.revisions()) this.set({ environment }, revision);
    },
  });
  new Gauge({
    name: "vexil_snapshot_age_seconds",
    help: "Seconds the snapshot served may be missing changes for, per environment (0 while it follows every change)",
    labelNames: ["environment"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [environment, seconds] of sources.ages()) this.set({ environment }, seconds);
    },
  });
  new Gauge({
    name: "vexil_snapshot_degraded",
    help: "1 while the snapshots served may miss changes, per reason: nats (changes not announced), redis (cannot be read), reload (reading fails)",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      const now = new Set(sources.reasons().map(({ reason }) => reason));
      for (const reason of degradedReasons) this.set({ reason }, now.has(reason) ? 1 : 0);
    },
  });
  const lag = new Histogram({
    name: "vexil_snapshot_apply_lag_seconds",
    help: "Time from admin committing a change to this process serving it",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Unleash's labels, and the environment the SDK's token reads.
  const usage = new Counter({
    name: "feature_toggle_usage_total",
    help: "Flag evaluations reported by SDKs, per flag (toggle), result (active), application (appName) and environment",
    labelNames: ["toggle", "active", "appName", "environment"],
    registers: [registry],
  });
  const sdkVersions = new Counter({
    name: "client_sdk_versions",
    help: "SDK registrations, per SDK name and version (and the platform, Yggdrasil engine and client spec versions the SDK names)",
    labelNames: ["sdk_name", "sdk_version", "platform_name", "platform_version", "yggdrasil_version", "spec_version"],
    registers: [registry],
  });
  return {
    /** Counts one flag's evaluations from an SDK's metrics post. */
    usageReported(environment: string, appName: string, toggle: string, { yes, no }: { yes: number; no: number }): void {
      if (yes > 0) usage.inc({ toggle, active: "true", appName, environment }, yes);
      if (no > 0) usage.inc({ toggle, active: "false", appName, environment }, no);
    },
    /** Counts one registration whose `sdkVersion` reads `<name>:<version>`, as Unleash does; others name no SDK. */
    registered(registration: ClientRegistration): void {
      const sdk = registration.sdkVersion ?? "";
      const colon = sdk.lastIndexOf(":");
      if (colon <= 0 || colon === sdk.length - 1) return;
      sdkVersions.inc({
        sdk_name: sdk.slice(0, colon),
        sdk_version: sdk.slice(colon + 1),
        platform_name: labelOf(registration.platformName),
        platform_version: labelOf(registration.platformVersion),
        yggdrasil_version: labelOf(registration.yggdrasilVersion),
        spec_version: labelOf(registration.specVersion),
      });
    },
    /** Records one applied announcement. */
    applied(notice: SnapshotUpdated | undefined): void {
      if (!notice?.committedAt) return;
      lag.observe(Math.max(0, clock() - Date.parse(notice.committedAt)) / 1000);
    },
  };
}
