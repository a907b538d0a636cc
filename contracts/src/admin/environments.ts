import { z } from "zod";
import { c, errorResponses, resourceName, routerOptions } from "../common.js";

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

export const environmentsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/environments",
      summary: "List environments",
      responses: { 200: environmentListSchema, ...errorResponses(401, 403) },
    },
    get: {
      method: "GET",
      path: "/environments/:name",
      summary: "Get an environment",
      responses: { 200: environmentSchema, ...errorResponses(401, 403, 404) },
    },
    listForProject: {
      method: "GET",
      path: "/environments/project/:projectId",
      summary: "List the environments of a project",
      responses: { 200: environmentListSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/environments",
      summary: "Create an environment",
      body: createEnvironmentBodySchema,
      responses: { 201: environmentSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
    },
    update: {
      method: "PUT",
      path: "/environments/update/:name",
      summary: "Change an environment's type or sort order",
      body: updateEnvironmentBodySchema,
      responses: { 200: environmentSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    sortOrder: {
      method: "PUT",
      path: "/environments/sort-order",
      summary: "Set the sort order of environments",
      body: environmentSortOrderBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/environments/:name",
      summary: "Delete an environment no project has enabled",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
    },
    enable: {
      method: "POST",
      path: "/environments/:name/on",
      summary: "Enable an environment",
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    disable: {
      method: "POST",
      path: "/environments/:name/off",
      summary: "Disable an environment",
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
