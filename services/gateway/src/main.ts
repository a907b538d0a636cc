import { addonDeliveryEnv, deliverySettingsFrom } from "@vexil/addon-delivery";
import { adminEnv, initialAdminNotice } from "@vexil/admin";
import { loadConfig } from "@vexil/config";
import { frontendEvalEnv } from "@vexil/frontend-eval";
import { announce, createLogger } from "@vexil/logger";
import { onShutdown, openSecretBox } from "@vexil/runtime";
import { signalIngestEnv } from "@vexil/signal-ingest";
import { startClusterGateway } from "./cluster-gateway.js";
import { clusterGatewayEnv, gatewayEnv } from "./config.js";
import { startSystem } from "./system.js";

if (process.env.GATEWAY_MODE === "cluster") {
  const config = loadConfig(clusterGatewayEnv, process.env);
  const logger = createLogger({ level: config.LOG_LEVEL }).child({ service: "gateway" });
  const server = await startClusterGateway(
    {
      port: config.PORT,
      trustProxy: config.TRUST_PROXY,
      metricsToken: config.METRICS_TOKEN,
      sdkRequestLogLevel: config.SDK_REQUEST_LOG_LEVEL,
      addresses: { admin: config.ADMIN_URL, "frontend-eval": config.FRONTEND_EVAL_URL, "signal-ingest": config.SIGNAL_INGEST_URL },
    },
    logger,
  );
  logger.info({ port: server.port }, "gateway proxying to the services");
  onShutdown(logger, [() => server.close()]);
} else {
  const config = loadConfig(gatewayEnv, process.env);
  // Every service logs through its own child of this root, so no line names two services.
  const root = createLogger({ level: config.LOG_LEVEL });
  const logger = root.child({ service: "gateway" });
  const publicUrl = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
  // Each service reads its own settings from the same environment; their ports are unused here.
  const addonDelivery = deliverySettingsFrom(loadConfig(addonDeliveryEnv, process.env));
  const admin = loadConfig(adminEnv, process.env);
  const system = await startSystem(
    {
      platform: config,
      addonDelivery,
      admin,
      secrets: await openSecretBox({ ...config, ...admin }, logger),
      frontendEval: loadConfig(frontendEvalEnv, process.env),
      signalIngest: loadConfig(signalIngestEnv, process.env),
      port: config.PORT,
    },
    root,
  );
  onShutdown(logger, [() => system.stop()]);
  const token = system.createdAdminSecret
    ? ["Admin API token (created now, shown once; keep it):", `  ${system.createdAdminSecret}`]
    : ["Admin API token: the one printed at the first start, or one from INIT_ADMIN_API_TOKENS."];
  announce(logger, `Vexil is running at ${publicUrl} (web UI: open it in a browser and sign in)`, [
    ...token,
    ...initialAdminNotice(system.initialAdmin, publicUrl),
    "Try it:",
    `  curl -H 'Authorization: <token>' ${publicUrl}/api/admin/strategies`,
    `API documentation: ${publicUrl}/docs`,
  ]);
}
