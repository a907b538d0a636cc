import { z } from "zod";
import { resourceName } from "../common.js";

/** A global environment: flags are enabled per environment, projects pick which they use. */
export const environmentSchema = z.object({
  name: z.string(),
  type: z.string(),
  enabled: z.boolean(),
  protected: z.boolean(),
  sortOrder: z.number().int(),
});
export type Environment = z.infer<typeof environmentSchema>;

export const environmentListSchema = z.object({
  version: z.literal(1),
  environments: z.array(environmentSchema),
});

export const createEnvironmentBodySchema = z.object({
  name: resourceName(z.string().min(1).max(100)),
  type: z.string().min(1).max(100),
  sortOrder: z.number().int().optional(),
  enabled: z.boolean().optional(),
});

export const updateEnvironmentBodySchema = z.object({
  type: z.string().min(1).max(100).optional(),
  sortOrder: z.number().int().optional(),
});

/** `{ development: 1, production: 2 }` */
export const environmentSortOrderBodySchema = z.record(z.string(), z.number().int());
