import { z } from "zod";

/** What Vexil tells UIs and tools about itself; the subset of Unleash's ui-config they read. */
export const uiConfigSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** The Unleash API version whose paths and bodies Vexil serves. */
  unleashApiVersion: z.string(),
  environment: z.string(),
  authenticationType: z.string(),
  baseUriPath: z.string(),
  emailEnabled: z.boolean(),
  maintenanceMode: z.boolean(),
  /** Unleash's UI feature switches; Vexil has none to report. */
  flags: z.record(z.string(), z.boolean()),
  versionInfo: z.object({
    current: z.object({ oss: z.string(), enterprise: z.string() }),
    latest: z.record(z.string(), z.unknown()),
    isLatest: z.boolean(),
  }),
  /** The limits this server enforces, named as Unleash names them. */
  resourceLimits: z.record(z.string(), z.number()),
});
export type UiConfig = z.infer<typeof uiConfigSchema>;
