import { permissions, requires } from "../route-access.js";
import { c, errorResponses, locationHeader, routerOptions } from "../common.js";
import { contextFieldListSchema, contextFieldNameBodySchema, contextFieldSchema, upsertContextFieldBodySchema } from "../schemas/index.js";

/** `/api/admin/context`: the fields constraints and custom stickiness refer to. */
export const contextContract = c.router(
  {
    list: {
      method: "GET",
      path: "/context",
      metadata: requires(permissions.read),
      summary: "List context fields",
      description:
        "The context fields constraints and custom stickiness can use: the built-in ones (userId, sessionId, remoteAddress, environment, appName, currentTime) and custom ones with their legal values.",
      responses: { 200: contextFieldListSchema, ...errorResponses(401, 403) },
    },
    get: {
      method: "GET",
      path: "/context/:name",
      metadata: requires(permissions.read),
      summary: "Get a context field",
      description: "One context field with its legal values and whether it can be used for stickiness.",
      responses: { 200: contextFieldSchema, ...errorResponses(401, 403, 404) },
    },
    create: {
      method: "POST",
      path: "/context",
      summary: "Create a context field",
      description:
        "Defines a custom context field. With `legalValues`, constraints on it may only use those values; with `stickiness`, strategies and variants can stick to it.",
      body: upsertContextFieldBodySchema,
      metadata: {
        ...requires(permissions.createContextField),
        ...locationHeader,
        requestExample: {
          name: "tier",
          description: "Pricing tier",
          stickiness: true,
          legalValues: [{ value: "gold", description: "Paying yearly" }, { value: "silver" }],
        },
      },
      responses: { 201: contextFieldSchema, ...errorResponses(400, 401, 403, 409, 415) },
    },
    validateName: {
      method: "POST",
      path: "/context/validate",
      summary: "Check that a context field name is free",
      description: "Answers 204 when no context field has this name yet, 409 otherwise.",
      metadata: { ...requires(permissions.createContextField), requestExample: { name: "tier" } },
      body: contextFieldNameBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 409, 415) },
    },
    // A full replacement, as in Unleash: fields left out return to their defaults.
    update: {
      method: "PUT",
      path: "/context/:name",
      summary: "Update a context field",
      description: "Replaces a context field's description, legal values and stickiness (the name cannot change).",
      metadata: {
        ...requires(permissions.updateContextField),
        requestExample: {
          description: "Pricing tier",
          stickiness: true,
          legalValues: [{ value: "gold" }, { value: "silver" }, { value: "bronze" }],
        },
      },
      body: upsertContextFieldBodySchema.partial({ name: true }),
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 415) },
    },
    delete: {
      method: "DELETE",
      path: "/context/:name",
      metadata: requires(permissions.deleteContextField),
      summary: "Delete a context field",
      description: "Deletes a context field definition; constraints that name it are left as they are.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
