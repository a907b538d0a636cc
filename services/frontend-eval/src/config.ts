import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { storelessPlatformEnv } from "@vexil/runtime";
import { frontendApiOriginsEnv } from "./cross-origin.js";

/** frontend-eval keeps nothing durable: it reads no store setting (DATA_DIR, MONGODB_URL). */
export const frontendEvalEnv = storelessPlatformEnv.extend({
  ...frontendApiOriginsEnv.shape,
  PORT: envSchemas.port.default(4244),
  /** When false, /api/frontend answers 404, as Unleash does with the frontend API disabled. */
  FRONTEND_API_ENABLED: envSchemas.booleanString.default("true"),
  /** SDK streams (`/api/client/streaming`) this process keeps open at most; more get 503 with Retry-After. */
  SDK_STREAMS_LIMIT: z.coerce.number().int().min(1).default(20_000),
  /** SDK streams one API token may keep open here at most; more get 429 with Retry-After. */
  SDK_STREAMS_PER_TOKEN_LIMIT: z.coerce.number().int().min(1).default(10_000),
  /** New SDK streams started per second at most; a burst waits its turn so polls keep their share of the process. */
  SDK_STREAMS_ADMIT_PER_SECOND: z.coerce.number().int().min(1).default(1_000),
  /** Bytes of changes an SDK stream may have waiting unsent before it is closed as stalled (its client stopped reading). */
  SDK_STREAM_MAX_UNSENT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
});
export type FrontendEvalConfig = z.infer<typeof frontendEvalEnv>;
