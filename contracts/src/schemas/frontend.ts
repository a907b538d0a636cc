import { z } from "zod";
import { variantPayloadSchema } from "./variant.js";

/**
 * GET /api/frontend query: the Unleash frontend context. `properties[name]=value` arrives as a nested
 * object; other unknown parameters pass through, as Unleash treats them as properties too.
 */
export const frontendContextQuerySchema = z
  .object({
    userId: z.string().optional(),
    sessionId: z.string().optional(),
    remoteAddress: z.string().optional(),
    appName: z.string().optional(),
    environment: z.string().optional(),
    currentTime: z.string().optional(),
    properties: z.record(z.string(), z.string()).optional(),
  })
  .passthrough();
export type FrontendContextQuery = z.infer<typeof frontendContextQuerySchema>;

export const frontendVariantSchema = z.object({
  name: z.string(),
  enabled: z.boolean(),
  payload: variantPayloadSchema.optional(),
  feature_enabled: z.boolean().optional(),
  /** @deprecated use feature_enabled */
  featureEnabled: z.boolean().optional(),
});
export type FrontendVariant = z.infer<typeof frontendVariantSchema>;

export const frontendToggleSchema = z.object({
  name: z.string(),
  /** Always true: only enabled features are returned. */
  enabled: z.boolean(),
  impressionData: z.boolean(),
  variant: frontendVariantSchema.optional(),
});
export type FrontendToggle = z.infer<typeof frontendToggleSchema>;

export const frontendResultSchema = z.object({
  toggles: z.array(frontendToggleSchema),
});
export type FrontendResult = z.infer<typeof frontendResultSchema>;

/**
 * `POST /api/frontend` body: `{context: {...}}` as the browser SDK sends it with
 * `usePOSTrequests`; a bare context object is taken too.
 */
export const frontendContextBodySchema = z
  .object({
    context: frontendContextQuerySchema
      .extend({
        // JSON bodies carry typed values: Unleash takes numbers and booleans as properties and a
        // null one as absent (the client specification has such contexts).
        properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()).optional(),
      })
      .optional(),
  })
  .passthrough();
export type FrontendContextBody = z.infer<typeof frontendContextBodySchema>;
