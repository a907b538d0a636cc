import { createHttpApp, listen, type RequestLogLevel, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";
import { createMetricsRegistry } from "@vexil/metrics";
import { createAdminUiRouter } from "./admin-ui.js";
import { createDocsRouter } from "./docs.js";
import { onlyTrustedForwarding } from "./forwarded-headers.js";
import { createProxyRouter, type ServiceAddresses, type ServicePools } from "./proxy.js";
import { ReplicaPool, type ReplicaPoolOptions } from "./replica-pool.js";
import type { RoutedService } from "./routes.js";

/**
 * Cluster mode: the documented paths on one port, each proxied to a replica of the process that owns
 * it. Ready while it can reach a ready replica of any surface it routes: every gateway reaches the
 * same replicas, so taking one gateway out of a load balancer would only take away what it can
 * still serve (SDKs keep being answered while admin is down); a surface with no replica answers 503
 * on its own paths. `/health` details list each surface's replicas.
 */
export async function startClusterGateway(
  {
    addresses,
    port,
    host,
    trustProxy,
    metricsToken,
    sdkRequestLogLevel,
    probes,
  }: {
    addresses: ServiceAddresses;
    port: number;
    host?: string;
    trustProxy?: string;
    metricsToken?: string;
    sdkRequestLogLevel?: RequestLogLevel;
    probes?: ReplicaPoolOptions;
  },
  logger: Logger,
): Promise<RunningServer> {
  const pools = Object.fromEntries(
    (Object.entries(addresses) as Array<[RoutedService, string[]]>).map(([service, urls]) => [
      service,
      new ReplicaPool(service, urls, logger, probes),
    ]),
  ) as ServicePools;
  const all = Object.values(pools);
  await Promise.all(all.map((pool) => pool.start()));
  const adminUi = createAdminUiRouter(logger);
  const app = createHttpApp({
    logger,
    parseBodies: false,
    trustProxy,
    sdkRequestLogLevel,
    // The gateway's own: requests per proxied prefix. Each service serves its own on its port.
    metrics: { registry: createMetricsRegistry(), token: metricsToken },
    routers: [createDocsRouter(), onlyTrustedForwarding, createProxyRouter(pools, logger), ...(adminUi ? [adminUi] : [])],
    readiness: [
      {
        name: "replicas",
        check: async () => {
          if (all.every((pool) => pool.readyCount === 0)) throw new Error("no replica of any surface is ready");
        },
      },
    ],
    healthDetails: () => ({
      degraded: all
        .filter((pool) => pool.readyCount < pool.replicas.length)
        .map((pool) => ({
          name: `replicas:${pool.service}`,
          reason: `${pool.readyCount} of ${pool.replicas.length} ready${pool.readyCount === 0 ? `: its paths answer 503` : ""}`,
        })),
      surfaces: Object.fromEntries(all.map((pool) => [pool.service, pool.replicas.map(({ url, ready }) => ({ url, ready }))])),
    }),
  });
  const server = await listen(app, port, host);
  return {
    ...server,
    async close() {
      for (const pool of all) pool.stop();
      await server.close();
    },
  };
}
