import { z } from "zod";
import { dateTimeSchema } from "../common.js";

export const apiTokenTypes = ["client", "admin", "frontend"] as const;
export const apiTokenTypeSchema = z.enum(apiTokenTypes);
export type ApiTokenType = z.infer<typeof apiTokenTypeSchema>;

/** Secrets read `<project>:<environment>.<random_string>`; `*` stands for all. */
export const apiTokenSchema = z.object({
  secret: z.string(),
  /** @deprecated use tokenName */
  username: z.string().optional(),
  tokenName: z.string(),
  type: apiTokenTypeSchema,
  environment: z.string().optional(),
  project: z.string(),
  projects: z.array(z.string()),
  expiresAt: dateTimeSchema.nullable().optional(),
  createdAt: dateTimeSchema,
  seenAt: dateTimeSchema.nullable().optional(),
  alias: z.string().nullable().optional(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** Endpoint 20: empty when no token has the name (names are not unique). */
export const apiTokenListSchema = z.object({ tokens: z.array(apiTokenSchema) });
export type ApiTokenList = z.infer<typeof apiTokenListSchema>;
