import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsRegistry, metricsEndpoint, requestMetrics } from "./metrics.js";

const registry = createMetricsRegistry();
let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express();
  app.use(requestMetrics(registry), metricsEndpoint(registry, { token: "a-scrape-token-of-length" }));
  const features = express.Router();
  features.get("/projects/:projectId/features/:featureName", (_req, res) => void res.json({}));
  app.use("/api/admin", features);
  app.use("/proxied", (_req, res) => {
    res.locals.metricsRoute = "/proxied/*";
    res.status(204).end();
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

const scrape = async () => (await fetch(`${base}/metrics`, { headers: { authorization: "Bearer a-scrape-token-of-length" } })).text();

describe("requestMetrics", () => {
  it("labels requests with the route template (mount path included), a proxy's prefix, or unmatched", async () => {
    await fetch(`${base}/api/admin/projects/secret-project/features/secret-flag`);
    await fetch(`${base}/proxied/anything/secret`);
    await fetch(`${base}/nowhere/secret`);
    const text = await scrape();
    expect(text).toContain(
      'vexil_http_requests_total{method="GET",route="/api/admin/projects/:projectId/features/:featureName",status="200"} 1',
    );
    expect(text).toContain('vexil_http_requests_total{method="GET",route="/proxied/*",status="204"} 1');
    expect(text).toContain('vexil_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).not.toContain("secret");
  });
});

describe("metricsEndpoint", () => {
  it("with a token, answers 401 to a scraper without it or with another", async () => {
    expect((await fetch(`${base}/internal-backstage/prometheus`)).status).toBe(401);
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer another-token-of-same-len" } });
    expect(wrong.status).toBe(401);
    expect(await scrape()).toContain("# TYPE process_cpu_seconds_total counter");
  });
});
