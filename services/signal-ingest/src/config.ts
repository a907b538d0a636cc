import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

/** The spec's signal limits, overridable as Unleash allows for self-hosted installations. */
export const signalIngestLimitsEnv = z.object({
  /** Requests per second per signal endpoint, shared by every ingest instance (Unleash's variable). */
  SIGNAL_ENDPOINT_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(1),
  /** Largest signal payload accepted, in bytes (100 kB). */
  SIGNAL_PAYLOAD_LIMIT_BYTES: z.coerce.number().int().min(1).default(100_000),
});
export type SignalIngestLimits = z.infer<typeof signalIngestLimitsEnv>;

export const signalIngestEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4245),
  ...signalIngestLimitsEnv.shape,
});
export type SignalIngestConfig = z.infer<typeof signalIngestEnv>;
