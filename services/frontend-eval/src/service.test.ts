import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTokenSecret, tokenDigest, type TokenGrant } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { cacheKeys, topics, type ClientFeature, type ClientSegment } from "@vexil/contracts";
import { createHttpApp, listen, withFastRoutes, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { publishTokenGrants, type VexilService } from "@vexil/runtime";
import { z } from "zod";
import { clientFeature } from "./client-feature.fixture.js";
import { createFrontendEvalService } from "./service.js";
import { writeSnapshot } from "./snapshots/snapshot-cache.fixture.js";

const logger = createLogger({ service: "test", level: "silent" });

/** A flag as the admin stores it for the client API: its strategy carries an id and sort order. */
function feature(name: string, overrides: Partial<ClientFeature> = {}): ClientFeature {
  return clientFeature(name, {
    strategies: [{ id: `${name}-s`, name: "default", sortOrder: 0, constraints: [], parameters: {}, variants: [] }],
    ...overrides,
  });
}

const vipSegment: ClientSegment = {
  id: 1,
  name: "vips",
  constraints: [{ contextName: "userId", operator: "IN", values: ["vip"] }],
};

const initialFeatures = [
  feature("alpha"),
  feature("beta", { enabled: false }),
  feature("gamma", {
    project: "other",
    strategies: [
      {
        id: "g",
        name: "default",
        sortOrder: 0,
        constraints: [],
        parameters: {},
        segments: [1],
        variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default", payload: { type: "string", value: "b" } }],
      },
    ],
  }),
  feature("props", {
    strategies: [
      {
        id: "p",
        name: "default",
        sortOrder: 0,
        constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
        parameters: {},
        variants: [],
      },
    ],
  }),
];

interface Stored {
  revision: number;
  features: ClientFeature[];
  segments: ClientSegment[];
}

function stored(revision: number, features: ClientFeature[], segments: ClientSegment[] = [vipSegment]): Stored {
  return { revision, features, segments };
}

function grant(secret: string, type: TokenGrant["type"], projects: string[], environment: string): TokenGrant {
  return { digest: tokenDigest(secret), tokenName: `${type}-token`, type, environment, projects, expiresAt: null };
}

describe("frontend-eval service", () => {
  const cache = createMemoryCache();
  const bus = createMemoryBus();
  const tokens = {
    client: createTokenSecret({ projects: ["*"], environment: "development" }),
    clientDefaultProject: createTokenSecret({ projects: ["default"], environment: "development" }),
    frontend: createTokenSecret({ projects: ["*"], environment: "development" }),
    frontendOtherEnv: createTokenSecret({ projects: ["*"], environment: "production" }),
    frontendExpired: createTokenSecret({ projects: ["*"], environment: "development" }),
  };
  let service: VexilService;
  /** As the processes serve it: the SDK hot paths before express. */
  let server: RunningServer;
  /** The express routes alone, to compare with. */
  let plain: RunningServer;
  const seen: unknown[] = [];

  const get = (path: string, token: string | null, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { ...(token ? { authorization: token } : {}), ...headers } });
  const post = (path: string, token: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: token, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  /** What the admin does after a change: write the snapshot, then announce it. */
  async function publish(snapshot: Stored, change: { previousRevision: number; changedFeatures: string[] } | undefined = undefined) {
    await writeSnapshot(cache, "development", snapshot);
    bus.publish(topics.snapshotUpdated.of("development"), { environment: "development", revision: snapshot.revision, ...change });
  }

  beforeAll(async () => {
    await publishTokenGrants(cache, bus, [
      grant(tokens.client, "client", ["*"], "development"),
      grant(tokens.clientDefaultProject, "client", ["default"], "development"),
      grant(tokens.frontend, "frontend", ["*"], "development"),
      grant(tokens.frontendOtherEnv, "frontend", ["*"], "production"),
      { ...grant(tokens.frontendExpired, "frontend", ["*"], "development"), expiresAt: "2020-01-01T00:00:00.000Z" },
    ]);
    await cache.setJson(cacheKeys.snapshotEnvironments, ["development"]);
    await writeSnapshot(cache, "development", stored(10, initialFeatures));
    bus.subscribe(topics.featuresSeen, (payload) => {
      seen.push(payload);
    });
    service = await createFrontendEvalService({
      engines: { cache, bus },
      settings: { FRONTEND_API_ENABLED: true },
      logger,
    });
    await service.start();
    const app = createHttpApp({ logger, routers: [service.router] });
    server = await listen(withFastRoutes(app, service.fastRoutes ?? [], { logger }), 0, "127.0.0.1");
    plain = await listen(createHttpApp({ logger, routers: [service.router] }), 0, "127.0.0.1");
  });

  afterAll(async () => {
    await plain?.close();
    await server?.close();
    await service?.stop();
  });

  it("answers on the fast path exactly what the express routes answer, errors included", async () => {
    const requests: Array<[path: string, token: string | null, headers?: Record<string, string>]> = [
      ["/api/frontend?userId=vip&properties[plan]=pro", tokens.frontend],
      ["/api/frontend?plan=pro&remoteAddress=10.1.1.1", `Bearer ${tokens.frontend}`],
      ["/api/frontend?properties=nested", tokens.frontend],
      ["/api/frontend", tokens.client],
      ["/api/frontend", tokens.frontendExpired],
      ["/api/frontend", tokens.frontendOtherEnv],
      ["/api/frontend", "not-a-token"],
      ["/api/client/features", tokens.client, { "unleash-client-spec": "5.2.0" }],
      ["/api/client/features", tokens.client],
      ["/api/client/features?project=default&namePrefix=al", tokens.client, { "unleash-client-spec": "5.2.0" }],
      ["/api/client/features?project=other", tokens.clientDefaultProject, { "unleash-client-spec": "5.2.0" }],
      ["/api/client/features", tokens.client, { "unleash-client-spec": "five" }],
      ["/api/client/features", tokens.client, { "accept-encoding": "gzip" }],
      ["/api/client/features", tokens.frontend],
      ["/api/client/features", null],
    ];
    const answer = async (base: string, [path, token, headers]: (typeof requests)[number]) => {
      const res = await fetch(`${base}${path}`, { headers: { ...(token ? { authorization: token } : {}), ...headers } });
      const body = await res.text();
      const kept = ["content-type", "content-encoding", "etag", "vary"].map((name) => [name, res.headers.get(name)]);
      return { status: res.status, headers: kept, body: body.replace(/"id":"[^"]+"/, '"id":"…"') };
    };
    for (const request of requests) {
      // Twice: the first gzip answer is compressed on the express route, the next comes from the fast path.
      for (let i = 0; i < 2; i++) expect(await answer(server.url, request), request[0]).toEqual(await answer(plain.url, request));
    }
    const { headers } = await fetch(`${server.url}/api/client/features`, { headers: { authorization: tokens.client } });
    const etag = headers.get("etag")!;
    const notModified = await get("/api/client/features", tokens.client, { "if-none-match": `W/${etag}, "other"` });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(notModified.headers.get("x-request-id")).toBeTruthy();
  });

  describe("/api/frontend", () => {
    it("returns only enabled flags with their variants", async () => {
      const res = await get("/api/frontend?userId=vip", tokens.frontend);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.toggles.map((t: { name: string }) => t.name)).toEqual(["alpha", "gamma"]);
      expect(body.toggles[1]).toEqual({
        name: "gamma",
        enabled: true,
        impressionData: false,
        variant: { name: "blue", enabled: true, payload: { type: "string", value: "b" }, feature_enabled: true, featureEnabled: true },
      });
      expect(body.toggles[0].variant).toEqual({ name: "disabled", enabled: false, feature_enabled: true, featureEnabled: true });
    });

    it("reads properties from properties[...] and from unknown parameters", async () => {
      const names = async (query: string) =>
        ((await (await get(`/api/frontend?${query}`, tokens.frontend)).json()).toggles as Array<{ name: string }>).map((t) => t.name);
      expect(await names("properties[plan]=pro")).toContain("props");
      expect(await names("plan=pro")).toContain("props");
      expect(await names("plan=free")).not.toContain("props");
    });

    it("takes the context in a POST body, nested as the browser SDK sends it or bare", async () => {
      const nested = await (await post("/api/frontend", tokens.frontend, { context: { userId: "vip" } })).json();
      expect(nested.toggles.map((t: { name: string }) => t.name)).toContain("gamma");
      const bare = await (await post("/api/frontend", tokens.frontend, { userId: "nobody" })).json();
      expect(bare.toggles.map((t: { name: string }) => t.name)).not.toContain("gamma");
    });

    it("refuses a bad context, a missing token and a client token", async () => {
      const bad = await post("/api/frontend", tokens.frontend, { context: { userId: { nested: true } } });
      expect(bad.status).toBe(400);
      expect((await bad.json()).name).toBe("ValidationError");
      expect((await get("/api/frontend", null)).status).toBe(401);
      expect((await get("/api/frontend", tokens.client)).status).toBe(403);
    });

    it("answers 503 for an environment without a snapshot", async () => {
      const res = await get("/api/frontend", tokens.frontendOtherEnv);
      expect(res.status).toBe(503);
      expect((await res.json()).name).toBe("NotReady");
    });

    it("accepts metrics and registrations, and reports used flags to the admin", async () => {
      const metrics = {
        appName: "web",
        instanceId: "browser",
        bucket: {
          start: new Date().toISOString(),
          stop: new Date().toISOString(),
          toggles: { alpha: { yes: 2, no: 0, variants: {} }, idle: { yes: 0, no: 0 } },
        },
      };
      expect((await post("/api/frontend/client/metrics", tokens.frontend, metrics)).status).toBe(200);
      expect((await post("/api/frontend/client/register", tokens.frontend, { appName: "web" })).status).toBe(200);
      expect((await post("/api/frontend/client/metrics", tokens.frontend, {})).status).toBe(400);
      await vi.waitFor(() => expect(seen).toContainEqual(expect.objectContaining({ environment: "development", features: ["alpha"] })), {
        timeout: 3000,
      });
    });
  });

  describe("/api/client/features", () => {
    it("serves the payload with segments apart for SDKs of spec 4.2.0 and later", async () => {
      const res = await get("/api/client/features", tokens.client, { "unleash-client-spec": "5.2.0" });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.version).toBe(2);
      expect(body.features.map((f: ClientFeature) => f.name)).toEqual(["alpha", "beta", "gamma", "props"]);
      expect(body.segments).toEqual([vipSegment]);
      expect(body.query).toEqual({ environment: "development", inlineSegmentConstraints: false });
      expect(body.meta.revisionId).toBe(10);
      expect(res.headers.get("etag")).toBe(body.meta.etag);
    });

    it("inlines segment constraints for older SDKs", async () => {
      const body = await (await get("/api/client/features", tokens.client)).json();
      expect(body).not.toHaveProperty("segments");
      const gamma = body.features.find((f: ClientFeature) => f.name === "gamma");
      expect(gamma.strategies[0].constraints).toEqual(vipSegment.constraints);
      expect(gamma.strategies[0]).not.toHaveProperty("segments");
    });

    it("rejects an unreadable client spec header", async () => {
      const res = await get("/api/client/features", tokens.client, { "unleash-client-spec": "abc" });
      expect(res.status).toBe(400);
    });

    it("filters by the token's projects and by the query", async () => {
      const scoped = await (await get("/api/client/features", tokens.clientDefaultProject)).json();
      expect(scoped.features.map((f: ClientFeature) => f.name)).toEqual(["alpha", "beta", "props"]);
      const other = await (await get("/api/client/features?project=other", tokens.client)).json();
      expect(other.features.map((f: ClientFeature) => f.name)).toEqual(["gamma"]);
      const outside = await (await get("/api/client/features?project=other", tokens.clientDefaultProject)).json();
      expect(outside.features).toEqual([]);
      const prefixed = await (await get("/api/client/features?namePrefix=a", tokens.client)).json();
      expect(prefixed.features.map((f: ClientFeature) => f.name)).toEqual(["alpha"]);
      expect(prefixed.query.namePrefix).toBe("a");
    });

    it("answers 304 to a matching If-None-Match and compresses with brotli or gzip when asked", async () => {
      const first = await get("/api/client/features", tokens.client);
      const etag = first.headers.get("etag") as string;
      expect((await get("/api/client/features", tokens.client, { "if-none-match": etag })).status).toBe(304);
      expect((await get("/api/client/features", tokens.client, { "if-none-match": '"other:1:v1"' })).status).toBe(200);

      const raw = (acceptEncoding: string) =>
        new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
          // fetch decompresses on its own; read the bytes with node:http to see the encoding.
          import("node:http").then(({ get: httpGet }) =>
            httpGet(
              `${server.url}/api/client/features`,
              { headers: { authorization: tokens.client, "accept-encoding": acceptEncoding } },
              (res) => {
                const chunks: Buffer[] = [];
                res.on("data", (chunk: Buffer) => chunks.push(chunk));
                res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
              },
            ).on("error", reject),
          );
        });
      const gzipped = await raw("gzip");
      expect(gzipped.encoding).toBe("gzip");
      expect(JSON.parse(gunzipSync(gzipped.body).toString()).features).toHaveLength(4);
      const brotli = await raw("gzip, deflate, br");
      expect(brotli.encoding).toBe("br");
      expect(JSON.parse(brotliDecompressSync(brotli.body).toString()).features).toHaveLength(4);
      const brotliRefused = await raw("br;q=0, gzip");
      expect(brotliRefused.encoding).toBe("gzip");
      const plain = await raw("identity");
      expect(plain.encoding).toBeUndefined();
      expect(JSON.parse(plain.body.toString()).features).toHaveLength(4);
    });

    it("serves one flag, and 404 for unknown or out-of-scope ones", async () => {
      const res = await get("/api/client/features/alpha", tokens.client);
      expect(res.status).toBe(200);
      expect((await res.json()).name).toBe("alpha");
      expect((await get("/api/client/features/nope", tokens.client)).status).toBe(404);
      expect((await get("/api/client/features/gamma", tokens.clientDefaultProject)).status).toBe(404);
    });

    it("accepts register (202) and metrics (202), refusing bodies without appName", async () => {
      expect(
        (
          await post("/api/client/register", tokens.client, {
            appName: "svc",
            instanceId: "i1",
            strategies: ["default"],
            started: new Date().toISOString(),
            interval: 1000,
          })
        ).status,
      ).toBe(202);
      expect(
        (await post("/api/client/metrics", tokens.client, { appName: "svc", bucket: { start: 1, stop: 2, toggles: {} } })).status,
      ).toBe(202);
      expect((await post("/api/client/register", tokens.client, { instanceId: "i1" })).status).toBe(400);
      expect((await get("/api/client/features", tokens.frontend)).status).toBe(403);
    });
  });

  describe("changes", () => {
    it("swaps the snapshot on announcement, serves deltas and pushes them to streams", async () => {
      const stream = await get("/api/client/streaming", tokens.client);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let received = "";
      const readUntil = async (text: string) => {
        while (!received.includes(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream ended before ${text}`);
          received += value;
        }
      };
      await readUntil("event: unleash-connected");
      await readUntil("\n\n");
      expect(received).toContain("id: 10\n");
      expect(received).toContain('"type":"hydration"');

      const etagBefore = (await get("/api/client/features", tokens.client)).headers.get("etag") as string;
      const next = initialFeatures
        .filter((f) => f.name !== "beta")
        .map((f) => (f.name === "alpha" ? feature("alpha", { enabled: false }) : f));
      await publish(stored(12, next));

      await readUntil("event: unleash-updated");
      await readUntil("\n\n");
      const update = received.slice(received.indexOf("id: 12\nevent: unleash-updated"));
      expect(update).not.toBe("");
      const data = JSON.parse(update.split("data: ")[1]!.split("\n")[0]!);
      expect(data.events).toEqual([
        { eventId: 12, type: "feature-updated", feature: feature("alpha", { enabled: false }) },
        { eventId: 12, type: "feature-removed", featureName: "beta", project: "default" },
      ]);
      await reader.cancel();

      const after = await get("/api/client/features", tokens.client, { "if-none-match": etagBefore });
      expect(after.status).toBe(200);
      expect((await after.json()).meta.revisionId).toBe(12);
      const frontend = await (await get("/api/frontend", tokens.frontend)).json();
      expect(frontend.toggles.map((t: { name: string }) => t.name)).not.toContain("alpha");

      const delta = await get("/api/client/delta", tokens.client, { "if-none-match": '"10"' });
      expect(delta.headers.get("etag")).toBe('"12"');
      expect((await delta.json()).events.map((e: { type: string }) => e.type)).toEqual(["feature-updated", "feature-removed"]);
      expect((await get("/api/client/delta", tokens.client, { "if-none-match": '"12"' })).status).toBe(304);
      const hydration = await (await get("/api/client/delta", tokens.client)).json();
      expect(hydration.events[0].type).toBe("hydration");
      expect(hydration.events[0].features).toHaveLength(3);
    });

    it("resumes a stream from Last-Event-ID with only the missed changes", async () => {
      const res = await get("/api/client/streaming", tokens.client, { "last-event-id": "10" });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
      await reader.cancel();
      expect(text).toContain("event: unleash-updated");
      expect(text).not.toContain("hydration");
    });

    it("ignores announcements older than what it holds", async () => {
      bus.publish(topics.snapshotUpdated.of("development"), { environment: "development", revision: 3 });
      // A publisher that does not follow the contract.
      bus.publish({ ...topics.snapshotUpdated.of("development"), schema: z.unknown() }, { nonsense: true });
      const body = await (await get("/api/client/features", tokens.client)).json();
      expect(body.meta.revisionId).toBe(12);
    });

    it("reads only the flags an announcement names when it follows the revision held", async () => {
      const delta = await get("/api/client/delta", tokens.client, { "if-none-match": '"12"' });
      expect(delta.status).toBe(304);
      const gamma = initialFeatures.find((f) => f.name === "gamma")!;
      // alpha switched on, delta added, props removed; gamma untouched.
      await writeSnapshot(cache, "development", stored(13, [feature("alpha"), feature("delta"), gamma]));
      const reads = vi.spyOn(cache, "get");
      const readsJson = vi.spyOn(cache, "getJson");
      bus.publish(topics.snapshotUpdated.of("development"), {
        environment: "development",
        revision: 13,
        previousRevision: 12,
        changedFeatures: ["alpha", "delta", "props"],
      });
      await vi.waitFor(async () => expect((await (await get("/api/client/features", tokens.client)).json()).meta.revisionId).toBe(13));
      // Only the named entries, not the index nor the others.
      const keysRead = [...reads.mock.calls, ...readsJson.mock.calls].map(([key]) => key).filter((key) => key.startsWith("snapshot:"));
      expect(keysRead.sort()).toEqual(["alpha", "delta", "props"].map((name) => cacheKeys.snapshotFeature("development", name)));
      reads.mockRestore();
      readsJson.mockRestore();

      const body = await (await get("/api/client/features", tokens.client)).json();
      expect(body.features.map((f: ClientFeature) => [f.name, f.enabled])).toEqual([
        ["alpha", true],
        ["delta", true],
        ["gamma", true],
      ]);
      const events = (await (await get("/api/client/delta", tokens.client, { "if-none-match": '"12"' })).json()).events;
      expect(
        events.map((e: { type: string; feature?: ClientFeature; featureName?: string }) => [e.type, e.feature?.name ?? e.featureName]),
      ).toEqual([
        ["feature-updated", "alpha"],
        ["feature-updated", "delta"],
        ["feature-removed", "props"],
      ]);
      const frontend = await (await get("/api/frontend?userId=vip", tokens.frontend)).json();
      expect(frontend.toggles.map((t: { name: string }) => t.name)).toEqual(["alpha", "delta", "gamma"]);
    });

    it("reloads the whole snapshot after an announcement it cannot follow", async () => {
      const all = [feature("alpha", { enabled: false }), feature("delta"), feature("gamma", { enabled: false }), feature("late")];
      // Revision 14 never reached this reader; the notice for 15 follows 14.
      await publish(stored(15, all), { previousRevision: 14, changedFeatures: ["late"] });
      await vi.waitFor(async () => expect((await (await get("/api/client/features", tokens.client)).json()).meta.revisionId).toBe(15));
      const body = await (await get("/api/client/features", tokens.client)).json();
      expect(body.features.map((f: ClientFeature) => [f.name, f.enabled])).toEqual([
        ["alpha", false],
        ["delta", true],
        ["gamma", false],
        ["late", true],
      ]);
    });
  });
});
