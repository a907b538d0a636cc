import { dependencyCheckMs, runChecks } from "@vexil/http";
import { Gauge, type Registry } from "@vexil/metrics";
import { engineChecks, type EnginesWithoutStore } from "./engines.js";

/**
 * `vexil_bus_connected` and `vexil_cache_connected`: 1 while NATS and Redis answer this process, 0
 * while it is cut off from them, read at scrape time by the same checks `/health` runs (with the
 * same time limit, so a hung server reads 0 instead of holding the scrape). What a process serves
 * without them is on `/health`; these are what an alert is written on. The in-process bus and
 * cache of a start without NATS_URL / REDIS_URL always answer.
 */
export function registerEngineMetrics(registry: Registry, engines: EnginesWithoutStore): void {
  const checks = new Map(engineChecks(engines).dependencies.map((check) => [check.name, check]));
  const gauges = [
    { name: "vexil_bus_connected", check: "bus", help: "1 while the bus (NATS) answers this process, 0 while it does not" },
    { name: "vexil_cache_connected", check: "cache", help: "1 while the cache (Redis) answers this process, 0 while it does not" },
  ];
  for (const { name, check, help } of gauges) {
    const dependency = checks.get(check)!;
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const [result] = await runChecks([dependency], dependencyCheckMs);
        this.set(result?.ready ? 1 : 0);
      },
    });
  }
}
