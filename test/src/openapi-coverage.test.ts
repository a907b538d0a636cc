import { describe, expect, it } from "vitest";
import { coverageOf, describeUncovered, matchOperation, operationsOf } from "./openapi-coverage.js";

const document = {
  paths: {
    "/api/admin/features/validate": { post: {} },
    "/api/admin/features/{featureName}": { get: {}, delete: {}, parameters: [] },
    "/api/admin/segments/{id}/strategies": { get: {} },
  },
};

describe("OpenAPI coverage", () => {
  const operations = operationsOf(document);

  it("lists every operation of the document, and nothing that is not a method", () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      "POST /api/admin/features/validate",
      "GET /api/admin/features/{featureName}",
      "DELETE /api/admin/features/{featureName}",
      "GET /api/admin/segments/{id}/strategies",
    ]);
  });

  it("matches a request to the most specific template, ignoring the query and an encoded parameter's content", () => {
    expect(matchOperation(operations, "POST", "/api/admin/features/validate")?.path).toBe("/api/admin/features/validate");
    expect(matchOperation(operations, "get", "/api/admin/features/a%2Fb?x=1")?.path).toBe("/api/admin/features/{featureName}");
    expect(matchOperation(operations, "GET", "/api/admin/segments/7/strategies/")?.path).toBe("/api/admin/segments/{id}/strategies");
    expect(matchOperation(operations, "PUT", "/api/admin/features/x")).toBeUndefined();
    expect(matchOperation(operations, "GET", "/api/admin/features/x/y")).toBeUndefined();
  });

  it("counts an operation covered only once a call to it succeeded", () => {
    const report = coverageOf(operations, [
      { method: "POST", url: "/api/admin/features/validate", status: 409 },
      { method: "POST", url: "/api/admin/features/validate", status: 200 },
      { method: "GET", url: "/api/admin/features/x", status: 404 },
      { method: "GET", url: "/api/admin/features/x", status: 401 },
      { method: "GET", url: "/unrelated", status: 200 },
    ]);
    expect(report.covered.map((c) => c.operation.path)).toEqual(["/api/admin/features/validate"]);
    expect(describeUncovered(report)).toEqual([
      "GET /api/admin/features/{featureName}: only refused (401, 404)",
      "DELETE /api/admin/features/{featureName}: never called",
      "GET /api/admin/segments/{id}/strategies: never called",
    ]);
  });
});
