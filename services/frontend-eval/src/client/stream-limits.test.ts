import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret, tokenDigest } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { snapshotEnvironmentsKey } from "@vexil/contracts";
import { createHttpApp, listen, withFastRoutes, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { Registry } from "@vexil/metrics";
import { publishTokenGrants, type VexilService } from "@vexil/runtime";
import { clientFeature } from "../client-feature.fixture.js";
import { createFrontendEvalService } from "../service.js";
import { writeSnapshot } from "../snapshots/snapshot-cache.fixture.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("SDK streams are bounded", () => {
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  const metrics = new Registry();
  const [one, two] = [1, 2].map(() => createTokenSecret({ projects: ["*"], environment: "development" })) as [string, string];
  let service: VexilService;
  let server: RunningServer;
  const open: Array<AbortController> = [];

  beforeAll(async () => {
    await publishTokenGrants(
      cache,
      bus,
      [one, two].map((secret, i) => ({
        digest: tokenDigest(secret),
        tokenName: `t${i}`,
        type: "client" as const,
        environment: "development",
        projects: ["*"],
        expiresAt: null,
      })),
    );
    await cache.setJson(snapshotEnvironmentsKey, ["development"]);
    await writeSnapshot(cache, "development", { revision: 1, features: [clientFeature("a")] });
    service = await createFrontendEvalService({
      engines: { cache, bus },
      settings: { FRONTEND_API_ENABLED: true, SDK_STREAMS_LIMIT: 3, SDK_STREAMS_PER_TOKEN_LIMIT: 2 },
      logger,
      metrics,
    });
    await service.start();
    server = await listen(
      withFastRoutes(createHttpApp({ logger, routers: [service.router] }), service.fastRoutes ?? [], { logger }),
      0,
      "127.0.0.1",
    );
  });
  afterAll(async () => {
    for (const controller of open) controller.abort();
    await server?.close();
    await service?.stop();
  });

  async function stream(token: string): Promise<Response> {
    const controller = new AbortController();
    open.push(controller);
    return fetch(`${server.url}/api/client/streaming`, { headers: { authorization: token }, signal: controller.signal });
  }
  const gauge = async () => (await metrics.getSingleMetricAsString("vexil_sdk_streaming_connections")).split("\n").at(-1);

  it("refuses a token's stream past its bound with 429, any past the process's with 503, in the error shape with Retry-After", async () => {
    expect((await stream(one)).status).toBe(200);
    expect((await stream(one)).status).toBe(200);
    const third = await stream(one);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("5");
    expect(await third.json()).toMatchObject({
      id: expect.any(String),
      name: "TooManyRequests",
      message: expect.stringContaining("2 streams open"),
    });

    expect((await stream(two)).status).toBe(200);
    const fourth = await stream(two);
    expect(fourth.status).toBe(503);
    expect(fourth.headers.get("retry-after")).toBe("5");
    expect(await fourth.json()).toMatchObject({ name: "ServiceUnavailable", message: expect.stringContaining("3 streams open") });
    expect(await gauge()).toBe("vexil_sdk_streaming_connections 3");
  });

  it("counts a closed stream out at once: its token may open another", async () => {
    open.shift()!.abort();
    await expect.poll(gauge).toBe("vexil_sdk_streaming_connections 2");
    expect((await stream(one)).status).toBe(200);
  });
});
