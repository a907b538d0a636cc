import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret, tokenDigest } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys, topics } from "@vexil/contracts";
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
    await cache.setJson(cacheKeys.snapshotEnvironments, ["development"]);
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

describe("SDK streams are admitted at a bounded rate", () => {
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  const metrics = new Registry();
  const token = createTokenSecret({ projects: ["*"], environment: "development" });
  let service: VexilService;
  let server: RunningServer;
  const controllers: AbortController[] = [];

  beforeAll(async () => {
    await publishTokenGrants(cache, bus, [
      { digest: tokenDigest(token), tokenName: "t", type: "client", environment: "development", projects: ["*"], expiresAt: null },
    ]);
    await cache.setJson(cacheKeys.snapshotEnvironments, ["development"]);
    await writeSnapshot(cache, "development", { revision: 1, features: [clientFeature("a")] });
    service = await createFrontendEvalService({
      engines: { cache, bus },
      // Two at once, then one every 100 ms.
      settings: { FRONTEND_API_ENABLED: true, SDK_STREAMS_ADMIT_PER_SECOND: 10 },
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
    for (const controller of controllers) controller.abort();
    await server?.close();
    await service?.stop();
  });

  /** Reads a stream until `until` matches what came so far. */
  async function readUntil(res: Response, until: RegExp): Promise<string> {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!until.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
    return text;
  }

  it("queues a burst, counts it against the bounds at once, and starts each from the snapshot current when its turn comes", async () => {
    const opened = Array.from({ length: 6 }, () => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(`${server.url}/api/client/streaming`, { headers: { authorization: token }, signal: controller.signal });
    });
    await expect
      .poll(async () => (await metrics.getSingleMetricAsString("vexil_sdk_streaming_connections")).split("\n").at(-1))
      .toBe("vexil_sdk_streaming_connections 6");
    const answeredAtOnce = await Promise.race([Promise.all(opened).then(() => true), new Promise((r) => setTimeout(() => r(false), 50))]);
    expect(answeredAtOnce).toBe(false);

    // A change while most still wait: those started earlier get it as an update, the rest in their hydration.
    await writeSnapshot(cache, "development", { revision: 2, features: [clientFeature("a"), clientFeature("b")] });
    bus.publish(topics.snapshotUpdated.of("development"), {
      environment: "development",
      revision: 2,
      previousRevision: 1,
      changedFeatures: ["b"],
    });

    const texts = await Promise.all(
      opened.map(async (pending) => {
        const res = await pending;
        expect(res.status).toBe(200);
        return readUntil(res, /id: 2\n/);
      }),
    );
    for (const text of texts) {
      expect(text).toMatch(/event: unleash-connected/);
      expect(text).toMatch(/id: 2\nevent: unleash-(connected|updated)\ndata: .*"name":"b"/);
    }
  });
});

describe("an SDK stream whose client stops reading", () => {
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  const metrics = new Registry();
  const token = createTokenSecret({ projects: ["*"], environment: "development" });
  let service: VexilService;
  let server: RunningServer;

  beforeAll(async () => {
    await publishTokenGrants(cache, bus, [
      { digest: tokenDigest(token), tokenName: "t", type: "client", environment: "development", projects: ["*"], expiresAt: null },
    ]);
    await cache.setJson(cacheKeys.snapshotEnvironments, ["development"]);
    await writeSnapshot(cache, "development", { revision: 1, features: [clientFeature("a")] });
    service = await createFrontendEvalService({
      engines: { cache, bus },
      settings: { FRONTEND_API_ENABLED: true, SDK_STREAM_MAX_UNSENT_BYTES: 64 * 1024 },
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
    await server?.close();
    await service?.stop();
  });

  it("is closed once more changes wait for it than allowed, while a stream that reads gets every change", async () => {
    // A peer that sends its request and then reads nothing: the kernel's buffers fill, then the process's.
    const stalled = connect(Number(new URL(server.url).port), "127.0.0.1");
    stalled.write(`GET /api/client/streaming HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\n\r\n`);
    stalled.pause();
    const reading = await fetch(`${server.url}/api/client/streaming`, { headers: { authorization: token } });
    const reader = reading.body!.getReader();
    let received = "";
    const readAll = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += decoder.decode(value, { stream: true });
      }
    })();
    await expect.poll(gauge).toBe("vexil_sdk_streaming_connections 2");

    // Changes of about 256 kB each, until the stalled stream is closed (loopback buffers hold some MB).
    const bulky = "x".repeat(256 * 1024);
    const stalledCount = async () => (await metrics.getSingleMetricAsString("vexil_sdk_streams_stalled_total")).split("\n").at(-1);
    let revision = 1;
    while ((await stalledCount()) === "vexil_sdk_streams_stalled_total 0" && revision < 400) {
      revision++;
      await writeSnapshot(cache, "development", {
        revision,
        features: [clientFeature("a", { description: `${revision} ${bulky}` })],
      });
      bus.publish(topics.snapshotUpdated.of("development"), {
        environment: "development",
        revision,
        previousRevision: revision - 1,
        changedFeatures: ["a"],
      });
      await expect.poll(() => received.includes(`id: ${revision}\n`)).toBe(true);
    }
    expect(await stalledCount()).toBe("vexil_sdk_streams_stalled_total 1");
    await expect.poll(gauge).toBe("vexil_sdk_streaming_connections 1");
    // Once it reads again, the stalled peer finds its connection gone.
    const ended = new Promise((resolve) => stalled.once("close", resolve));
    stalled.resume();
    await ended;

    // The reading stream is untouched and got the last change.
    expect(received).toContain(`id: ${revision}\nevent: unleash-updated`);
    await reader.cancel();
    await readAll;
  });

  const gauge = async () => (await metrics.getSingleMetricAsString("vexil_sdk_streaming_connections")).split("\n").at(-1);
});
