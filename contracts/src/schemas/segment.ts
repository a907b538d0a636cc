import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { constraintSchema } from "./constraint.js";

export const segmentUpsertSchema = z.object({
  name: z.string().min(1).max(255),
  description: z.string().nullable().optional(),
  project: z.string().nullable().optional(),
  constraints: z.array(constraintSchema),
});
export type SegmentUpsert = z.infer<typeof segmentUpsertSchema>;

export const segmentSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable().optional(),
  constraints: z.array(constraintSchema),
  usedInFeatures: z.number().int().nullable().optional(),
  usedInProjects: z.number().int().nullable().optional(),
  project: z.string().nullable().optional(),
  createdBy: z.string().nullable().optional(),
  createdAt: dateTimeSchema,
});
export type Segment = z.infer<typeof segmentSchema>;

export const segmentListSchema = z.object({ segments: z.array(segmentSchema) });
export type SegmentList = z.infer<typeof segmentListSchema>;

/** Segment ids travel as path strings; the handler gets a positive integer or the request is a 400. */
export const segmentIdParamsSchema = z.object({
  id: z.coerce.number().int().positive(),
});

export const segmentNameBodySchema = z.object({ name: z.string().min(1) });

/** `GET /api/admin/segments/:id/strategies`: the strategies that reference a segment. */
export const segmentStrategiesSchema = z.object({
  strategies: z.array(
    z.object({
      id: z.string(),
      projectId: z.string(),
      featureName: z.string(),
      strategyName: z.string(),
      environment: z.string(),
    }),
  ),
  changeRequestStrategies: z.array(z.record(z.string(), z.unknown())),
});
export type SegmentStrategies = z.infer<typeof segmentStrategiesSchema>;
