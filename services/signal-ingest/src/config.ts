import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

/** The spec's signal limits, overridable as Unleash allows for self-hosted installations. */
const signalIngestLimitsEnv = z.object({
  /** Requests per second per signal endpoint, shared by every ingest instance (Unleash's variable). */
  SIGNAL_ENDPOINT_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(1),
  /** Largest signal payload accepted, in bytes (100 kB). */
  SIGNAL_PAYLOAD_LIMIT_BYTES: z.coerce.number().int().min(1).default(100_000),
});

const signalRetentionEnv = z.object({
  /** Days a received signal is kept once announced; 0 keeps every signal for good. */
  SIGNALS_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
});

/** What the service reads besides the platform's settings. */
export const signalIngestSettingsEnv = signalIngestLimitsEnv.merge(signalRetentionEnv);
export type SignalIngestSettings = z.infer<typeof signalIngestSettingsEnv>;

export const signalIngestEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4245),
  ...signalIngestSettingsEnv.shape,
});
export type SignalIngestConfig = z.infer<typeof signalIngestEnv>;
