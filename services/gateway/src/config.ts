import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

export const gatewayEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4242),
  /** single: every service in this process; cluster: proxy to the services' own processes. */
  GATEWAY_MODE: z.enum(["single", "cluster"]).default("single"),
  ADMIN_URL: envSchemas.url.default("http://127.0.0.1:4243"),
  FRONTEND_EVAL_URL: envSchemas.url.default("http://127.0.0.1:4244"),
  SIGNAL_INGEST_URL: envSchemas.url.default("http://127.0.0.1:4245"),
  /** The address printed for users; defaults to http://localhost:<PORT>. */
  PUBLIC_URL: envSchemas.url.optional(),
});
export type GatewayConfig = z.infer<typeof gatewayEnv>;

/** `npm run start:cluster`: the gateway's port (each service takes one of the next four) and the NATS and Redis they share. */
export const clusterEnv = z.object({
  PORT: envSchemas.port.default(4242),
  NATS_URL: envSchemas.url.default("nats://127.0.0.1:4222"),
  REDIS_URL: envSchemas.url.default("redis://127.0.0.1:6379"),
});
