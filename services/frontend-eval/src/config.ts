import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

export const frontendEvalEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4244),
  /** When false, /api/frontend answers 404, as Unleash does with the frontend API disabled. */
  FRONTEND_API_ENABLED: envSchemas.booleanString.default("true"),
});
export type FrontendEvalConfig = z.infer<typeof frontendEvalEnv>;
