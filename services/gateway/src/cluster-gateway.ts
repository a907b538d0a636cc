import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import type { Logger } from "@vexil/logger";
import { createMetricsRegistry } from "@vexil/metrics";
import { createAdminUiRouter } from "./admin-ui.js";
import { createDocsRouter } from "./docs.js";
import { createProxyRouter, type ServiceAddresses } from "./proxy.js";

/** Cluster mode: the documented paths on one port, each proxied to the process that owns it. */
export async function startClusterGateway(
  {
    addresses,
    port,
    host,
    trustProxy,
    metricsToken,
  }: { addresses: ServiceAddresses; port: number; host?: string; trustProxy?: string; metricsToken?: string },
  logger: Logger,
): Promise<RunningServer> {
  const adminUi = createAdminUiRouter(logger);
  const app = createHttpApp({
    logger,
    parseBodies: false,
    trustProxy,
    // The gateway's own: requests per proxied prefix. Each service serves its own on its port.
    metrics: { registry: createMetricsRegistry(), token: metricsToken },
    routers: [createDocsRouter(), createProxyRouter(addresses, logger), ...(adminUi ? [adminUi] : [])],
    readiness: Object.entries(addresses).map(([name, url]) => ({
      name,
      check: async () => {
        const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) });
        if (!res.ok) throw new Error(`${name} answered ${res.status}`);
      },
    })),
  });
  return listen(app, port, host);
}
