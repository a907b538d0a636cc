import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@vexil/config";
import { topics } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { engineChecks, natsAddress } from "./engines.js";
import { openEngines, closeEngines } from "./service-process.js";
import { platformEnv, storeLocation } from "./platform-config.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("platform configuration", () => {
  it("defaults to embedded engines under ./data, one folder per service", () => {
    const config = loadConfig(platformEnv, {});
    expect(config.MONGODB_URL).toBeUndefined();
    expect(storeLocation(config, "frontend-eval")).toEqual({
      database: "vexil_frontend_eval",
      dir: path.resolve("data", "frontend-eval"),
    });
  });

  it("refuses malformed engine URLs", () => {
    expect(() => loadConfig(platformEnv, { MONGODB_URL: "postgres://x", NATS_URL: "nope" })).toThrow(ConfigError);
  });
});

describe("natsAddress", () => {
  it("takes the credentials out of NATS_URL and gives them as the client's options", () => {
    expect(natsAddress("nats://nats:4222")).toEqual({ servers: "nats://nats:4222" });
    expect(natsAddress("nats://vexil:p%40ss%3Aw0rd@nats:4222")).toEqual({ servers: "nats://nats:4222", user: "vexil", pass: "p@ss:w0rd" });
    expect(natsAddress("nats://s3cret-token@nats:4222")).toEqual({ servers: "nats://nats:4222", token: "s3cret-token" });
  });
});

describe("openEngines without servers", () => {
  it("opens an embedded store, an in-process bus and an in-memory cache that work together", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "vexil-runtime-"));
    const engines = await openEngines(loadConfig(platformEnv, { DATA_DIR: dir }), "admin", logger);
    try {
      await engines.store.ping();
      await engines.cache.set("k", "v");
      expect(await engines.cache.get("k")).toBe("v");
      const heard = new Promise((resolve) => engines.bus.subscribe(topics.tokensChanged, resolve));
      engines.bus.publish(topics.tokensChanged, { count: 1 });
      expect(await heard).toEqual({ count: 1 });
      await engines.store.collection<{ _id: string }>("things").insertOne({ _id: "a" });
    } finally {
      await closeEngines(engines);
    }
    const reopened = await openEngines(loadConfig(platformEnv, { DATA_DIR: dir }), "admin", logger);
    expect(await reopened.store.collection<{ _id: string }>("things").findOne({ _id: "a" })).toEqual({ _id: "a" });
    await closeEngines(reopened);
    await rm(dir, { recursive: true, force: true });
  });
});

describe("a service that keeps nothing durable", () => {
  it("opens no store, makes no folder for one and has no store readiness check", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "vexil-runtime-"));
    const engines = await openEngines(loadConfig(platformEnv, { DATA_DIR: dir }), "frontend-eval", logger, { store: false });
    try {
      expect("store" in engines).toBe(false);
      const checks = engineChecks(engines);
      expect(checks.readiness).toEqual([]);
      // NATS and Redis are never on /ready: the service serves what it can without them.
      expect(checks.dependencies.map((check) => check.name)).toEqual(["bus", "cache"]);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await closeEngines(engines);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("does not try MongoDB at all: an unreachable MONGODB_URL does not hold it up", async () => {
    const config = loadConfig(platformEnv, { MONGODB_URL: "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=600000" });
    const engines = await openEngines(config, "frontend-eval", logger, { store: false });
    await closeEngines(engines);
  });
});
