import { createMemoryBus, namespacedBus, connectNatsBus, type Bus } from "@vexil/bus";
import { createMemoryCache, createRedisCache, type Cache } from "@vexil/cache";
import type { ReadinessCheck } from "@vexil/http";
import { eventStreamSubjects } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";
import { createEmbeddedEngine, createMongoEngine, type StoreEngine } from "@vexil/store";
import { storeLocation, type PlatformConfig, type StorelessPlatformConfig } from "./platform-config.js";

export async function openStore(config: PlatformConfig, service: string, logger: Logger): Promise<StoreEngine> {
  const { database, dir } = storeLocation(config, service);
  if (!config.MONGODB_URL) return createEmbeddedEngine({ dir, log: logger.child({ module: "store" }) });
  return createMongoEngine({
    url: config.MONGODB_URL,
    database,
    onIndexBuildFailed: ({ collection, index, err }) =>
      logger.error(
        { err, collection, index },
        "an index could not be built; reads it would serve scan meanwhile, and the next start builds it again",
      ),
  });
}

/**
 * The bus, connected or not: NATS unreachable at start is reached in the background for as long as
 * it takes, so a process started while it is away serves what it can meanwhile (see `connectNatsBus`).
 */
export async function openBus(config: StorelessPlatformConfig, service: string, logger: Logger): Promise<Bus> {
  if (!config.NATS_URL) return createMemoryBus({ logger: logger.child({ module: "bus" }) });
  const namespace = config.NATS_NAMESPACE;
  const bus = await connectNatsBus({
    ...natsAddress(config.NATS_URL),
    streamName: config.NATS_STREAM,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    streamSubjects: namespace ? eventStreamSubjects.map((s) => `${namespace}.${s}`) : eventStreamSubjects,
    logger: logger.child({ module: "bus" }),
    name: `vexil-${service}`,
  });
  return namespace ? namespacedBus(bus, namespace) : bus;
}

/**
 * NATS_URL carries the credentials, as MONGODB_URL and REDIS_URL do, so one secret holds the whole
 * address: `nats://user:password@host:4222`, or `nats://token@host:4222`. The NATS client ignores
 * credentials in a URL, so they are taken out and given as its options.
 */
export function natsAddress(url: string): { servers: string; user?: string; pass?: string; token?: string } {
  const parsed = new URL(url);
  if (!parsed.username) return { servers: url };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  const servers = parsed.toString().replace(/\/$/, "");
  return password === "" ? { servers, token: user } : { servers, user, pass: password };
}

export async function openCache(config: StorelessPlatformConfig, logger: Logger): Promise<Cache> {
  if (!config.REDIS_URL) return createMemoryCache();
  return createRedisCache({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger: logger.child({ module: "cache" }) });
}

/** What a service needs from the outside world, opened for one process. */
export interface Engines {
  store: StoreEngine;
  bus: Bus;
  cache: Cache;
}

/** The engines of a service that keeps nothing durable (frontend-eval): it neither opens nor waits for a store. */
export type EnginesWithoutStore = Omit<Engines, "store">;

/** A store that serves reads but refuses every write for now (a full disk): degraded, not unready. */
export function storeWritesCheck(name: string, store: StoreEngine): ReadinessCheck {
  return {
    name,
    check: async () => {
      const failure = store.writeFailure();
      if (failure !== undefined) throw new Error(failure);
    },
  };
}

/**
 * Probes for a service's engines, each naming what is down and since when. The store is what a
 * service that has one cannot serve without: it is on `/ready`. NATS and Redis are not: every
 * service serves what it can while they are away (admin takes writes into its outbox, frontend-eval
 * answers from the snapshot it holds), so they are dependencies, reported as degraded on `/health`.
 * So are the store's writes: while its disk is full it serves reads, and takes writes again by itself.
 */
export function engineChecks({ store, bus, cache }: { store?: StoreEngine; bus: Bus; cache: Cache }): {
  readiness: ReadinessCheck[];
  dependencies: ReadinessCheck[];
} {
  return {
    readiness: store ? [{ name: "store", check: () => store.ping() }] : [],
    dependencies: [
      ...(store ? [storeWritesCheck("store-writes", store)] : []),
      { name: "bus", check: () => bus.ping() },
      { name: "cache", check: () => cache.ping() },
    ],
  };
}
