import { z } from "zod";
import { apiTokenTypeSchema } from "../schemas/api-token.js";
import { notice, request } from "./topic.js";

/** What a service needs to admit an API token: the sha256 digest of its secret, never the secret. */
export const tokenGrantSchema = z.object({
  digest: z.string(),
  tokenName: z.string(),
  type: apiTokenTypeSchema,
  environment: z.string(),
  projects: z.array(z.string()),
  expiresAt: z.string().nullable(),
  /** Personal access tokens act as their user. */
  userId: z.number().optional(),
});
export const tokenGrantsSchema = z.array(tokenGrantSchema);

/** Digests of the tokens a service admitted since its last report. */
export const tokensSeenSchema = z.object({ digests: z.array(z.string()).min(1) });
export type TokensSeen = z.infer<typeof tokensSeenSchema>;

export const tokenTopics = {
  /** admin replaced the shared grants: every service reloads them. */
  tokensChanged: notice("tokens.changed", z.object({ count: z.number().int().nonnegative() })),
  /** admin answers (one replica of the `admin` queue group) with every grant, for a reader that found the cache without them. */
  tokenGrants: request("tokens.grants", z.object({}).passthrough(), tokenGrantsSchema),
  /** Every service reports which tokens it admitted, batched, so admin can set `seenAt`. */
  tokensSeen: notice("tokens.seen", tokensSeenSchema),
} as const;
