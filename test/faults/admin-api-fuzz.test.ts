/**
 * Fuzzes the admin API from its own OpenAPI document (`/docs/openapi.json`), schemathesis-style:
 * for every admin operation a bounded number of requests whose parameters and bodies follow the
 * documented schemas most of the time and stray from them otherwise, sent with the admin token to
 * the running process. Any 5xx fails the run; the number of cases is reported.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";
import { operationArbitraries, type FuzzRequest, type OpenApiDocument } from "./openapi-arbitraries.js";

const casesPerOperation = Number(process.env.FUZZ_CASES_PER_OPERATION ?? 8);
const admin = createTokenSecret({ projects: ["*"], environment: "*" });

describe("the admin API under generated requests", () => {
  let vexil: VexilProcess;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    vexil = await startVexilProcess({ env: { INIT_ADMIN_API_TOKENS: admin, LOG_LEVEL: "warn" } });
    doc = (await (await fetch(`${vexil.url}/docs/openapi.json`)).json()) as OpenApiDocument;
  }, 90_000);
  afterAll(async () => {
    await vexil?.stop();
  });

  it("never answers 5xx", async () => {
    // The admin surface, less the calls that would end the fuzzer's own access or sign it out.
    const operations = operationArbitraries(
      doc,
      (path) => (path.startsWith("/api/admin") || path === "/feedback") && !path.startsWith("/api/admin/api-tokens"),
    );
    expect(operations.size).toBeGreaterThan(50);
    const failures: string[] = [];
    let cases = 0;
    const statuses = new Map<number, number>();
    for (const [name, arbitrary] of operations) {
      await fc
        .assert(
          fc.asyncProperty(arbitrary, async (request: FuzzRequest) => {
            cases++;
            const res = await fetch(`${vexil.url}${request.path}`, {
              method: request.method,
              headers: { authorization: admin, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
              body: request.body,
              signal: AbortSignal.timeout(30_000),
            });
            const text = await res.text();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500)
              failures.push(`${name}: ${request.method} ${request.path} ${request.body ?? ""} -> ${res.status} ${text.slice(0, 200)}`);
            return res.status < 500;
          }),
          { numRuns: casesPerOperation, endOnFailure: true },
        )
        .catch(() => undefined);
    }
    console.log(
      `admin API fuzz: ${cases} cases over ${operations.size} operations; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; ${failures.length} answered 5xx`,
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
