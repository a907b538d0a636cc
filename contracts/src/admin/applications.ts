import { permissions, requires } from "../route-access.js";
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
      metadata: requires(permissions.read),
      summary: "List client applications",
      description: "The applications whose SDKs registered or sent metrics, with their description, URL, color and icon.",
      query: applicationListQuerySchema,
      responses: { 200: applicationListSchema, ...errorResponses(400, 401, 403) },
    },
    get: {
      method: "GET",
      path: "/metrics/applications/:appName",
      metadata: requires(permissions.read),
      summary: "Get a client application with its instances",
      description:
        "One application with the SDK instances seen for it (instance id, SDK version, client IP, last seen) and the strategies they registered.",
      responses: { 200: applicationDetailsSchema, ...errorResponses(401, 403, 404) },
    },
    // Creates the application when it does not exist yet, as Unleash does.
    update: {
      method: "POST",
      path: "/metrics/applications/:appName",
      summary: "Set a client application's description, url, color or icon",
      description:
        "Sets the display fields of an application; fields left out keep their value. Creates the application if no SDK reported it yet.",
      metadata: {
        ...requires(permissions.updateApplication),
        requestExample: { description: "Checkout backend", url: "https://checkout.example.com", color: "#1a73e8", icon: "shopping_cart" },
      },
      contentType: "application/json",
      body: updateApplicationSchema,
      responses: { 202: c.noBody(), ...errorResponses(400, 401, 403, 415) },
    },
    // Answers 200 also when there is no such application, as Unleash does.
    delete: {
      method: "DELETE",
      path: "/metrics/applications/:appName",
      metadata: requires(permissions.updateApplication),
      summary: "Delete a client application and its instances",
      description: "Forgets an application and its instances; a running SDK registers it again.",
      body: c.noBody(),
      responses: { 200: c.noBody(), ...errorResponses(401, 403) },
    },
  },
  routerOptions,
);
