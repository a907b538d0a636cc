import { z } from "zod";

/** Unleash's segment limits, under its own variable names and with its defaults. */
export const segmentLimitsEnv = z.object({
  /** Values across all constraints of one segment. */
  UNLEASH_SEGMENT_VALUES_LIMIT: z.coerce.number().int().min(1).default(1000),
  /** Segments one strategy may reference. */
  UNLEASH_STRATEGY_SEGMENTS_LIMIT: z.coerce.number().int().min(1).default(5),
});
export type SegmentLimitSettings = z.infer<typeof segmentLimitsEnv>;

/** Settings given by the caller win; the rest take Unleash's defaults. */
export function segmentLimits(settings: Partial<SegmentLimitSettings>) {
  const limits = segmentLimitsEnv.parse(settings);
  return { segmentValues: limits.UNLEASH_SEGMENT_VALUES_LIMIT, strategySegments: limits.UNLEASH_STRATEGY_SEGMENTS_LIMIT };
}
export type SegmentLimits = ReturnType<typeof segmentLimits>;
