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

/** GET /api/admin/api-tokens/:name: empty when no token has the name (names are not unique). */
export const apiTokenListSchema = z.object({ tokens: z.array(apiTokenSchema) });
export type ApiTokenList = z.infer<typeof apiTokenListSchema>;

const tokenNameSchema = z.string().trim().min(1, "Must not be empty").max(255);

/**
 * Create body, as Unleash takes it: `tokenName` (or the deprecated `username`), a type (any case;
 * `backend` is Unleash's old name for `client`), an environment (`*` or one name; Unleash's default
 * is `development`) and `project` or `projects` (`*` or names; all projects when absent).
 */
export const createApiTokenSchema = z
  .object({
    tokenName: tokenNameSchema.optional(),
    /** @deprecated use tokenName */
    username: tokenNameSchema.optional(),
    type: z
      .string()
      .transform((t) => t.toLowerCase())
      .transform((t) => (t === "backend" ? "client" : t))
      .pipe(apiTokenTypeSchema),
    environment: z.string().trim().min(1).optional(),
    project: z.string().trim().min(1).optional(),
    projects: z.array(z.string().trim().min(1)).min(1, "Must name at least one project or *").optional(),
    expiresAt: dateTimeSchema.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (!body.tokenName && !body.username) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["tokenName"], message: "tokenName is required" });
    }
    if (body.project && body.projects) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["projects"], message: "Give either project or projects, not both" });
    }
  });
export type CreateApiToken = z.infer<typeof createApiTokenSchema>;

/** PUT `/api-tokens/:token`: only the expiry changes. */
export const updateApiTokenSchema = z.object({ expiresAt: dateTimeSchema });
export type UpdateApiToken = z.infer<typeof updateApiTokenSchema>;
