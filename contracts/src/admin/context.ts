import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { contextFieldListSchema, contextFieldNameBodySchema, contextFieldSchema, upsertContextFieldBodySchema } from "../schemas/index.js";

/** `/api/admin/context`: the fields constraints and custom stickiness refer to. */
export const contextContract = c.router(
  {
    list: {
      method: "GET",
      path: "/context",
      summary: "List context fields",
      responses: { 200: contextFieldListSchema, ...errorResponses(401, 403) },
    },
    get: {
      method: "GET",
      path: "/context/:name",
      summary: "Get a context field",
      responses: { 200: contextFieldSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/context",
      summary: "Create a context field",
      body: upsertContextFieldBodySchema,
      metadata: locationHeader,
      responses: { 201: contextFieldSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    validateName: {
      method: "POST",
      path: "/context/validate",
      summary: "Check that a context field name is free",
      body: contextFieldNameBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 409, 415) },
    },
    // A full replacement, as in Unleash: fields left out return to their defaults.
    update: {
      method: "PUT",
      path: "/context/:name",
      summary: "Update a context field",
      body: upsertContextFieldBodySchema.partial({ name: true }),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/context/:name",
      summary: "Delete a context field",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
