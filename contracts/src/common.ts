import { initContract } from "@ts-rest/core";
import { z } from "zod";

export const c: ReturnType<typeof initContract> = initContract();

/** ISO 8601 timestamp string, with `Z` or a numeric offset (`2024-05-01T12:00:00.000Z`). */
export const dateTimeSchema = z.string().datetime({ offset: true, message: "Must be an ISO 8601 date-time" });

/** A JSON object of unknown shape (provider parameters, payloads that vary by action). */
export const jsonObjectSchema = z.record(z.string(), z.unknown());

/** Names every JavaScript object answers to: as resource names they would act as keys, not data. */
export const reservedNames: readonly string[] = ["__proto__", "constructor", "prototype"];

/** A user-chosen resource name: refused when it is one of the `reservedNames`. */
export function resourceName(schema: z.ZodString) {
  return schema.refine((name) => !reservedNames.includes(name), {
    message: `Must not be one of the reserved names ${reservedNames.join(", ")}`,
  });
}

export const errorDetailSchema = z.object({
  path: z.string().optional(),
  message: z.string(),
});

/** The error body every surface answers with. `details` names the offending fields of a 400. */
export const errorBodySchema = z.object({
  id: z.string(),
  name: z.string(),
  message: z.string(),
  details: z.array(errorDetailSchema).optional(),
});
export type ErrorDetail = z.infer<typeof errorDetailSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Statuses the spec maps to an error body (plus 429 for rate-limited signal endpoints). */
export const errorStatuses = [400, 401, 403, 404, 409, 413, 415, 429] as const;
export type ErrorStatus = (typeof errorStatuses)[number];

/**
 * `errorResponses(401, 403, 404)` → `{ 401: errorBodySchema, 403: ..., 404: ... }`, so each route
 * lists exactly the error statuses the spec gives it and the OpenAPI document shows them.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S): { [K in S[number]]: typeof errorBodySchema } {
  return Object.fromEntries(statuses.map((status) => [status, errorBodySchema])) as {
    [K in S[number]]: typeof errorBodySchema;
  };
}

/** Every error status at once, for routers that want them on all routes. */
export const commonResponses = errorResponses(...errorStatuses);

/** Options shared by every router: handlers may only answer the statuses their route declares. */
export const routerOptions = { strictStatusCodes: true } as const;

/**
 * Route metadata read by the OpenAPI builder: response headers ts-rest contracts cannot express,
 * such as `location` on a 201.
 */
export interface RouteMetadata {
  responseHeaders?: Record<number, Record<string, { description: string }>>;
  /** An example request body, shown in the OpenAPI document. */
  requestExample?: unknown;
}

export const locationHeader: RouteMetadata = {
  responseHeaders: { 201: { location: { description: "Location of the created resource" } } },
};
