import { describe, expect, it } from "vitest";
import { adminContract, apiContract, buildOpenApiDocument, frontendContract, signalsContract, feedbackContract } from "./index.js";
import type { RouteMetadata } from "./common.js";

interface RouteLike {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  body?: unknown;
  metadata?: RouteMetadata;
}

/** Every route of a contract, with its key path (`admin.segments.create`). */
function routesOf(router: object, prefix = ""): [string, RouteLike][] {
  return Object.entries(router).flatMap(([key, value]: [string, unknown]) => {
    if (typeof value !== "object" || value === null) return [];
    const name = prefix ? `${prefix}.${key}` : key;
    return "method" in value && "path" in value ? [[name, value as RouteLike] as [string, RouteLike]] : routesOf(value, name);
  });
}

const isSchema = (body: unknown): body is { safeParse(value: unknown): { success: boolean; error?: unknown } } =>
  typeof body === "object" && body !== null && typeof (body as { safeParse?: unknown }).safeParse === "function";

/** The spec's Endpoints table, in OpenAPI path form, with each row's method, success and error statuses. */
const documented = [
  ["get", "/api/admin/projects/{projectId}", 200, [401, 403, 404]],
  ["get", "/api/admin/projects/{projectId}/health-report", 200, [401, 403, 404]],
  ["patch", "/api/admin/projects/{projectId}/features/{featureName}", 200, [401, 403, 404, 415]],
  ["post", "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/on", 200, [400, 401, 403, 404]],
  ["post", "/api/admin/addons", 200, [400, 401, 403, 413, 415]],
  ["put", "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants", 200, [400, 401, 403]],
  ["post", "/api/admin/segments", 201, [400, 401, 403, 409, 415]],
  ["put", "/api/admin/invite-link/tokens/{token}", 200, [400, 401, 403]],
  ["post", "/api/signal-endpoint/{name}", 202, []],
  ["post", "/api/admin/projects/{projectId}/environments/{environment}/change-requests", 200, []],
  ["get", "/api/admin/strategies/{name}", 200, [401, 404]],
  ["post", "/api/admin/projects/{projectId}/features/{featureName}/clone", 201, []],
  ["put", "/api/admin/segments/{id}", 204, [400, 401, 403, 409, 415]],
  ["get", "/api/frontend", 200, [401, 404]],
  ["post", "/api/admin/auth/saml/settings", 200, [400, 401, 403, 415]],
  ["post", "/api/admin/projects/{projectId}/archive/validate", 200, [400, 401, 403, 415]],
  ["get", "/api/admin/strategies", 200, [401]],
  ["post", "/api/admin/tags", 201, [400, 401, 403, 409, 415]],
  ["post", "/feedback", 200, []],
  ["get", "/api/admin/api-tokens/{name}", 200, [401, 403]],
] as const;

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument();

  it("is titled and secured by the Authorization header", () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe("Vexil API");
    expect(doc.components?.securitySchemes?.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it.each(documented)("documents %s %s with its statuses", (method, path, success, errors) => {
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method.toUpperCase()} ${path}`).toBeDefined();
    expect(Object.keys(operation.responses)).toContain(String(success));
    for (const status of errors) {
      expect(operation.responses[String(status)].content["application/json"].schema.required).toEqual(["id", "name", "message"]);
    }
  });

  it("covers all 20 documented endpoints", () => {
    const operations = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`)));
    expect(documented.filter(([method, path]) => !operations.has(`${method} ${path}`))).toEqual([]);
    expect(documented).toHaveLength(20);
  });

  it("shows the location header on 201 creations and deepObject context properties", () => {
    expect(doc.paths["/api/admin/segments"].post.responses["201"].headers.location.schema).toEqual({ type: "string" });
    expect(doc.paths["/api/admin/tags"].post.responses["201"].headers).toHaveProperty("location");
    const properties = doc.paths["/api/frontend"].get.parameters.find((p: { name: string }) => p.name === "properties");
    expect(properties).toMatchObject({ in: "query", style: "deepObject", explode: true });
  });

  const routes = routesOf(apiContract);

  it("describes every operation beyond its one-line summary", () => {
    expect(routes.length).toBeGreaterThan(190);
    const undescribed = routes.filter(([, route]) => !route.description || route.description === route.summary).map(([name]) => name);
    expect(undescribed).toEqual([]);
    for (const operation of Object.values(doc.paths).flatMap((ops) => Object.values(ops as Record<string, { description?: string }>))) {
      expect(operation.description).toEqual(expect.any(String));
    }
  });

  it("shows an example of every request body, one the route itself accepts", () => {
    const withBody = routes.filter(([, route]) => isSchema(route.body));
    const missing = withBody.filter(([, route]) => route.metadata?.requestExample === undefined).map(([name]) => name);
    expect(missing).toEqual([]);
    const refused = withBody
      .filter(
        ([, route]) => !(route.body as { safeParse(v: unknown): { success: boolean } }).safeParse(route.metadata?.requestExample).success,
      )
      .map(([name]) => name);
    expect(refused).toEqual([]);
    expect(doc.paths["/api/admin/segments"].post.requestBody.content["application/json"].example).toEqual(
      adminContract.segments.create.metadata.requestExample,
    );
  });

  it("gives every operation a unique id", () => {
    const ids = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops as Record<string, { operationId: string }>).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("contracts", () => {
  it("prefix every admin path with /api/admin", () => {
    expect(adminContract.segments.update.path).toBe("/api/admin/segments/:id");
    expect(adminContract.changeRequests.addChanges.path).toBe("/api/admin/projects/:projectId/environments/:environment/change-requests");
    expect(frontendContract.getFeatures.path).toBe("/api/frontend");
    expect(signalsContract.receive.path).toBe("/api/signal-endpoint/:name");
    expect(feedbackContract.create.path).toBe("/feedback");
  });

  it("only lets handlers answer the statuses they declare", () => {
    expect(adminContract.segments.create.strictStatusCodes).toBe(true);
    expect(frontendContract.getFeatures.strictStatusCodes).toBe(true);
  });
});
