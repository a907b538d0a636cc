import { c, errorResponses, routerOptions } from "../common.js";
import { applicationDetailsSchema, applicationListQuerySchema, applicationListSchema, updateApplicationSchema } from "../schemas/index.js";

/**
 * Client applications: what SDKs announced through `/client/register` and their metrics, served
 * on Unleash's paths under `/metrics/applications`.
 */
export const applicationsContract = c.router(
  {
    list: {
      method: "GET",
      path: "/metrics/applications",
      summary: "List client applications",
      query: applicationListQuerySchema,
      responses: { 200: applicationListSchema, ...errorResponses(400, 401, 403) },
    },
    get: {
      method: "GET",
      path: "/metrics/applications/:appName",
      summary: "Get a client application with its instances",
      responses: { 200: applicationDetailsSchema, ...errorResponses(401, 403, 404) },
    },
    // Creates the application when it does not exist yet, as Unleash does.
    update: {
      method: "POST",
      path: "/metrics/applications/:appName",
      summary: "Set a client application's description, url, color or icon",
      contentType: "application/json",
      body: updateApplicationSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
    // Answers 200 also when there is no such application, as Unleash does.
    delete: {
      method: "DELETE",
      path: "/metrics/applications/:appName",
      summary: "Delete a client application and its instances",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
