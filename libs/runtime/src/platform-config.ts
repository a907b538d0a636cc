import path from "node:path";
import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { defaultTrustedProxies, trustProxyProblem } from "@vexil/http";

/** A `TRUST_PROXY` value, refused at start when it is not one. */
export const trustProxyEnv = z.string().superRefine((value, ctx) => {
  const problem = trustProxyProblem(value);
  if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
});

/** The engine settings every service reads: real servers when their URL is set, embedded otherwise. */
export const platformEnv = z.object({
  LOG_LEVEL: envSchemas.logLevel.default("info"),
  /** The level of the request lines of SDK calls and Prometheus scrapes that succeed: most of the requests at SDK scale. */
  SDK_REQUEST_LOG_LEVEL: envSchemas.logLevel.default("debug"),
  DATA_DIR: z.string().default("./data"),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, "must be a mongodb:// or mongodb+srv:// URL")
    .optional(),
  MONGODB_DATABASE: z.string().optional(),
  NATS_URL: envSchemas.url.optional(),
  NATS_STREAM: z
    .string()
    .regex(/^[\w-]+$/)
    .default("VEXIL_EVENTS"),
  /** Copies of the event stream in a NATS cluster (3 for a three-node cluster). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Puts every subject under `<namespace>.`, so installations (or test runs) can share one NATS. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[\w-]+$/, "letters, digits, _ and - only")
    .optional(),
  REDIS_URL: envSchemas.url.optional(),
  REDIS_KEY_PREFIX: z.string().default("vexil:"),
  /**
   * Peers whose X-Forwarded-For, -Host and -Proto are believed (Express "trust proxy" syntax, or
   * `none`). A service behind the gateway trusts loopback and private networks; the gateway trusts none by default.
   */
  TRUST_PROXY: trustProxyEnv.default(defaultTrustedProxies),
  /** When set, `/internal-backstage/prometheus` and `/metrics` need `Authorization: Bearer <token>`; open otherwise. */
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
});
export type PlatformConfig = z.infer<typeof platformEnv>;

/** The platform settings of a service that keeps nothing durable (frontend-eval): no store, so no store setting. */
export const storelessPlatformEnv = platformEnv.omit({ DATA_DIR: true, MONGODB_URL: true, MONGODB_DATABASE: true });
export type StorelessPlatformConfig = z.infer<typeof storelessPlatformEnv>;

/** Each service keeps its own database (MongoDB) or its own folder (embedded). */
export function storeLocation(config: PlatformConfig, service: string) {
  return {
    database: config.MONGODB_DATABASE ?? `vexil_${service.replaceAll("-", "_")}`,
    dir: path.resolve(config.DATA_DIR, service),
  };
}
