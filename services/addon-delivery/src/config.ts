import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

export const addonDeliveryEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4246),
});
export type AddonDeliveryConfig = z.infer<typeof addonDeliveryEnv>;
