import { Gauge, type Registry } from "@vexil/metrics";

/**
 * What admin shows Prometheus, read at scrape time: events committed but not yet on the bus (the
 * outbox backlog; growing means NATS is away or the relay stuck) and the snapshot revision last
 * announced per environment.
 */
export function registerAdminMetrics(
  registry: Registry,
  sources: { outboxBacklog(): Promise<number>; publishedRevisions(): Array<[environment: string, revision: number]> },
): void {
  new Gauge({
    name: "vexil_outbox_backlog",
    help: "Domain events committed by admin and not yet published to the bus",
    registers: [registry],
    async collect() {
      this.set(await sources.outboxBacklog());
    },
  });
  new Gauge({
    name: "vexil_snapshot_published_revision",
    help: "Revision of the flag snapshot admin last announced, per environment",
    labelNames: ["environment"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [environment, revision] of sources.publishedRevisions()) this.set({ environment }, revision);
    },
  });
}
