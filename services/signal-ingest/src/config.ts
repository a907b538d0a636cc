import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

export const signalIngestEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4245),
});
export type SignalIngestConfig = z.infer<typeof signalIngestEnv>;
