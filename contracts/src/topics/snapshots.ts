import { z } from "zod";
import { notice, request, subjectToken, withParameter } from "./topic.js";

/**
 * A new snapshot for one environment; `revision` is the id of the newest event it reflects. When
 * it names `previousRevision` and the changed flags, a reader holding exactly that revision reads
 * only those entries (and the segments when `segmentsChanged`); any other reader, or a notice
 * without them, reloads the whole snapshot.
 */
export const snapshotUpdatedSchema = z.object({
  environment: z.string().min(1),
  revision: z.number().int().nonnegative(),
  previousRevision: z.number().int().nonnegative().optional(),
  changedFeatures: z.array(z.string()).optional(),
  segmentsChanged: z.boolean().optional(),
  /** When the oldest change in this revision was committed, for the commit-to-apply lag metric. */
  committedAt: z.string().datetime().optional(),
});
export type SnapshotUpdated = z.infer<typeof snapshotUpdatedSchema>;

export const snapshotTopics = {
  /** admin announces each environment's new snapshot; `of(environment)` is one environment's subject. */
  snapshotUpdated: withParameter(
    notice("snapshot.updated.*", snapshotUpdatedSchema),
    (environment: string) => `snapshot.updated.${subjectToken(environment)}`,
  ),
  /**
   * A reader that found the snapshot entries missing or incomplete (a cache that restarted empty)
   * asks the admin to write every environment's snapshot again. The admin answers once all are
   * written and announced (as full notices), naming the environments.
   */
  snapshotRepublish: request("snapshot.republish", z.object({}).passthrough(), z.object({ environments: z.array(z.string()) })),
} as const;
