import { z } from "zod";
import { dateTimeSchema } from "../common.js";
import { strategyDefinitionSchema } from "./strategy.js";

/** Where an application's SDKs read flags: per project, the environments of their tokens. */
export const applicationUsageSchema = z.object({
  project: z.string(),
  environments: z.array(z.string()),
});

/** What every view of an application shows: its name, what people set on it, when it appeared. */
const applicationBaseSchema = z.object({
  appName: z.string(),
  description: z.string().nullable(),
  url: z.string().nullable(),
  color: z.string().nullable(),
  icon: z.string().nullable(),
  createdAt: dateTimeSchema,
});

/** A client application as listed: what its SDKs announced plus what people set on it. */
export const applicationSchema = applicationBaseSchema.extend({
  createdBy: z.string().nullable(),
  strategies: z.array(z.string()),
  usage: z.array(applicationUsageSchema),
});
export type Application = z.infer<typeof applicationSchema>;

export const applicationListQuerySchema = z.object({
  /** Matches application names containing it, case-insensitively. */
  query: z.string().optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});
export type ApplicationListQuery = z.infer<typeof applicationListQuerySchema>;

export const applicationListSchema = z.object({
  applications: z.array(applicationSchema),
  total: z.number().int(),
});
export type ApplicationList = z.infer<typeof applicationListSchema>;

/** One running SDK of an application. */
export const clientInstanceSchema = z.object({
  appName: z.string(),
  instanceId: z.string(),
  sdkVersion: z.string().nullable(),
  sdkType: z.enum(["backend", "frontend"]).nullable(),
  clientIp: z.string().nullable(),
  environment: z.string(),
  lastSeen: dateTimeSchema,
  createdAt: dateTimeSchema,
});
export type ClientInstance = z.infer<typeof clientInstanceSchema>;

/** A strategy the application's SDKs implement: its definition, or `notFound` when none exists. */
export const applicationStrategySchema = z.union([strategyDefinitionSchema, z.object({ name: z.string(), notFound: z.literal(true) })]);

export const applicationDetailsSchema = applicationBaseSchema.extend({
  strategies: z.array(applicationStrategySchema),
  instances: z.array(clientInstanceSchema),
  /** Flags the application's SDKs have reported using. */
  seenToggles: z.array(z.string()),
  links: z.object({ self: z.string() }),
});
export type ApplicationDetails = z.infer<typeof applicationDetailsSchema>;

/** What people may set on an application (`POST /metrics/applications/:appName`). */
export const updateApplicationSchema = z.object({
  description: z.string().max(1000).optional(),
  url: z.string().max(1000).optional(),
  color: z.string().max(100).optional(),
  icon: z.string().max(100).optional(),
});
export type UpdateApplication = z.infer<typeof updateApplicationSchema>;
