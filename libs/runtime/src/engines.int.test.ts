import { randomUUID } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import net from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "nats";
import { afterAll, describe, expect, it } from "vitest";
import { createTokenSecret, tokenDigest } from "@vexil/auth";
import { loadConfig } from "@vexil/config";
import { cacheKeys, domainEventSchema, topics } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import { openBus } from "./engines.js";
import { platformEnv } from "./platform-config.js";
import { closeEngines, openEngines } from "./service-process.js";
import { openSharedTokenSet, publishTokenGrants } from "./shared-token-set.js";

const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
  });
}

const available = (await reachable(natsUrl)) && (await reachable(redisUrl));
if (!available) console.log(`skipped: NATS not reachable at ${natsUrl} or Redis not reachable at ${redisUrl}`);

describe.skipIf(!available)("openEngines with NATS and Redis", () => {
  const namespace = `test_${randomUUID().slice(0, 8)}`;
  const logger = createLogger({ service: "test", level: "silent" });
  const dirs: string[] = [];

  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
    await nc.close();
  });

  async function open(service: string) {
    const dir = await mkdtemp(path.join(tmpdir(), "vexil-runtime-int-"));
    dirs.push(dir);
    const config = loadConfig(platformEnv, {
      DATA_DIR: dir,
      NATS_URL: natsUrl,
      REDIS_URL: redisUrl,
      NATS_STREAM: namespace,
      NATS_NAMESPACE: namespace,
      REDIS_KEY_PREFIX: `${namespace}:`,
    });
    return openEngines(config, service, logger);
  }

  it("shares token grants between two processes' engines through Redis and NATS", async () => {
    const admin = await open("admin");
    const frontend = await open("frontend-eval");
    try {
      const shared = await openSharedTokenSet(frontend.cache, frontend.bus);
      const secret = createTokenSecret({ projects: ["*"], environment: "development" });
      await publishTokenGrants(admin.cache, admin.bus, [
        { digest: tokenDigest(secret), tokenName: "fe", type: "frontend", environment: "development", projects: ["*"], expiresAt: null },
      ]);
      const deadline = Date.now() + 1000;
      while (!shared.tokens.lookup(secret) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(shared.tokens.lookup(secret)?.tokenName).toBe("fe");

      await publishTokenGrants(admin.cache, admin.bus, []);
      const revokedBy = Date.now() + 1000;
      while (shared.tokens.lookup(secret) && Date.now() < revokedBy) await new Promise((r) => setTimeout(r, 10));
      expect(shared.tokens.lookup(secret)).toBeUndefined();
      shared.stop();
    } finally {
      await admin.cache.del(cacheKeys.tokenGrants);
      await closeEngines(admin);
      await closeEngines(frontend);
    }
  });

  it("delivers domain events durably within its namespace", async () => {
    const engines = await open("admin");
    try {
      const seen: string[] = [];
      const consumer = await engines.bus.consume("runtime-test", topics.domainEvents, (msg) => void seen.push(msg.subject));
      const event = domainEventSchema.parse({
        id: "1",
        type: "feature-created",
        createdAt: new Date().toISOString(),
        createdBy: "test",
        createdByUserId: 1,
      });
      await engines.bus.publishEvent(topics.domainEvents.of("feature-created"), event, { msgId: `${namespace}-1` });
      const deadline = Date.now() + 3000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await consumer.stop();
      expect(seen).toEqual(["events.feature-created"]);
    } finally {
      await closeEngines(engines);
    }
  });
});

/** A NATS server of its own that requires a user and password, on a free port. */
async function startAuthenticatedNats(user: string, password: string) {
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-nats-auth-"));
  const child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir, "--user", user, "--pass", password], {
    stdio: "ignore",
  });
  const url = `nats://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await reachable(url)); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    url,
    async stop() {
      child.kill();
      await new Promise((r) => child.once("exit", r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const natsServerInstalled = spawnSync("nats-server", ["--version"]).status === 0;
if (!natsServerInstalled) console.log("skipped: nats-server is not installed");

describe.skipIf(!natsServerInstalled)("openBus against a NATS that requires authentication", () => {
  const logger = createLogger({ service: "test", level: "silent" });

  it("authenticates with the credentials in NATS_URL, and is refused without them", async () => {
    const nats = await startAuthenticatedNats("vexil", "p@ss:word");
    try {
      const withCredentials = nats.url.replace("nats://", "nats://vexil:p%40ss%3Aword@");
      const bus = await openBus(loadConfig(platformEnv, { NATS_URL: withCredentials }), "admin", logger);
      await expect(bus.ping()).resolves.toBeUndefined();
      await bus.close();
      await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/);
    } finally {
      await nats.stop();
    }
  });
});
