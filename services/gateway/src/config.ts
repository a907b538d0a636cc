import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv, trustProxyEnv } from "@vexil/runtime";

/** One address per replica, comma-separated: `http://10.0.0.5:4244,http://10.0.0.6:4244`. */
const replicaUrls = envSchemas.commaList.pipe(
  z.array(envSchemas.url, { message: "comma-separated http(s) URLs" }).min(1, "at least one URL"),
);

/** The gateway's own settings, in either mode. */
const gatewayOwnEnv = z.object({
  PORT: envSchemas.port.default(4242),
  /** single: every service in this process; cluster: proxy to the services' own processes. */
  GATEWAY_MODE: z.enum(["single", "cluster"]).default("single"),
  /** Where each surface's replicas are, in cluster mode: the gateway balances over them. */
  ADMIN_URL: replicaUrls.default("http://127.0.0.1:4243"),
  FRONTEND_EVAL_URL: replicaUrls.default("http://127.0.0.1:4244"),
  SIGNAL_INGEST_URL: replicaUrls.default("http://127.0.0.1:4245"),
  /**
   * The gateway faces the clients (often directly, in single mode): it believes no peer's
   * X-Forwarded-* unless told which proxies stand in front of it.
   */
  TRUST_PROXY: trustProxyEnv.default("none"),
  /** The address printed for users; defaults to http://localhost:<PORT>. */
  PUBLIC_URL: envSchemas.url.optional(),
});

/** Single mode: every service runs in this process, on the engines the platform settings name. */
export const gatewayEnv = platformEnv.extend(gatewayOwnEnv.shape);
export type GatewayConfig = z.infer<typeof gatewayEnv>;

/**
 * Cluster mode: the gateway only proxies, so it opens no engine and reads no engine URL (nor
 * PUBLIC_URL, which only its start-up message uses); the
 * deployment files give it these variables and no others (`npm run validate:deploy` checks it).
 */
export const clusterGatewayEnv = platformEnv
  .pick({ LOG_LEVEL: true, SDK_REQUEST_LOG_LEVEL: true, METRICS_TOKEN: true })
  .extend(gatewayOwnEnv.omit({ PUBLIC_URL: true }).shape);

const replicaCount = z.coerce.number().int().min(1).max(16).default(1);

/**
 * `npm run start:cluster`: the gateway's port (the first replica of each service takes one of the
 * next four, further replicas the ports after), the NATS and Redis they share, and how many
 * replicas of each surface to run.
 */
export const clusterEnv = z.object({
  PORT: envSchemas.port.default(4242),
  NATS_URL: envSchemas.url.default("nats://127.0.0.1:4222"),
  REDIS_URL: envSchemas.url.default("redis://127.0.0.1:6379"),
  MONGODB_URL: z.string().optional(),
  ADMIN_REPLICAS: replicaCount,
  FRONTEND_EVAL_REPLICAS: replicaCount,
  SIGNAL_INGEST_REPLICAS: replicaCount,
  ADDON_DELIVERY_REPLICAS: replicaCount,
});
