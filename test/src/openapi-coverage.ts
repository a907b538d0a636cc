/**
 * Which operations of the OpenAPI document the end-to-end tests called through a real process,
 * judged from the requests those processes logged. An operation counts as covered once a call to
 * it was answered with a success (2xx or 3xx): a call that only ever met 401, 404 or 400 proves
 * the guard, not the operation.
 */
import type { LoggedRequest } from "./vexil-process.js";

export interface Operation {
  method: string;
  /** The path template as the document gives it, e.g. `/api/admin/segments/{id}`. */
  path: string;
  pattern: RegExp;
  /** Segments without a parameter: the more, the more specific (`/features/validate` over `/features/{name}`). */
  literalSegments: number;
}

export interface OperationCoverage {
  operation: Operation;
  /** Statuses of the calls that reached it, in the order they were made. */
  statuses: number[];
}

export interface CoverageReport {
  operations: OperationCoverage[];
  covered: OperationCoverage[];
  /** Never called, or called only to be refused. */
  uncovered: OperationCoverage[];
}

const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

export function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => methods.has(method))
      .map((method) => {
        const segments = path.split("/").filter(Boolean);
        const pattern = segments.map((s) => (/^\{.+\}$/.test(s) ? "[^/]+" : escapeRegExp(s))).join("/");
        return {
          method: method.toUpperCase(),
          path,
          pattern: new RegExp(`^/${pattern}/?$`),
          literalSegments: segments.filter((s) => !s.startsWith("{")).length,
        };
      }),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The operation a request was for: the most specific template its method and path match. */
export function matchOperation(operations: readonly Operation[], method: string, url: string): Operation | undefined {
  const pathname = url.split("?")[0]!;
  let best: Operation | undefined;
  for (const operation of operations) {
    if (operation.method !== method.toUpperCase() || !operation.pattern.test(pathname)) continue;
    if (!best || operation.literalSegments > best.literalSegments) best = operation;
  }
  return best;
}

export function coverageOf(operations: readonly Operation[], requests: Iterable<LoggedRequest>): CoverageReport {
  const byOperation = new Map(operations.map((operation) => [operation, [] as number[]]));
  for (const request of requests) {
    const operation = matchOperation(operations, request.method, request.url);
    if (operation) byOperation.get(operation)!.push(request.status);
  }
  const report: CoverageReport = { operations: [], covered: [], uncovered: [] };
  for (const [operation, statuses] of byOperation) {
    const entry = { operation, statuses };
    report.operations.push(entry);
    (statuses.some((s) => s < 400) ? report.covered : report.uncovered).push(entry);
  }
  return report;
}

/** One line per uncovered operation, saying what the calls that reached it got. */
export function describeUncovered(report: CoverageReport): string[] {
  return report.uncovered.map(({ operation, statuses }) => {
    const seen = statuses.length === 0 ? "never called" : `only refused (${[...new Set(statuses)].sort().join(", ")})`;
    return `${operation.method} ${operation.path}: ${seen}`;
  });
}
