import { z } from "zod";

/**
 * A URL on a flag (Unleash 7+'s feature links): its issue, pull request, dashboard or runbook.
 * Not the flag-to-flag links of `dependencies-and-lifecycle.ts` (dependencies and lifecycle).
 */
export const flagLinkSchema = z.object({
  id: z.string(),
  url: z.string(),
  title: z.string().nullable(),
});
export type FlagLink = z.infer<typeof flagLinkSchema>;

/** POST and PUT body. The URL is normalized as Unleash does (`example.com` → `https://example.com`). */
export const flagLinkBodySchema = z.object({
  url: z.string().min(1).max(2000),
  title: z.string().max(100).nullable().optional(),
});
export type FlagLinkBody = z.infer<typeof flagLinkBodySchema>;
