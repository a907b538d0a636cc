import net from "node:net";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, it, vi } from "vitest";
import { NotReady } from "@vexil/errors";
import { DuplicateKeyError } from "../errors.js";
import { indexOptions, MongoStoreCollection, type MongoCollectionContext } from "./collection.js";
import { bulkDuplicate } from "./driver-errors.fixture.js";
import { createMongoEngine, pingDatabase, pinnedClientOptions } from "./engine.js";
import { topologyProblem, versionAtLeastMinimum } from "./server-check.js";

/** A loopback port that accepts connections and closes them at once: a server that never answers. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("index options sent to the driver", () => {
  it("holds only the options that are set: mongod refuses unique: null", () => {
    expect(indexOptions({})).toEqual({});
    expect(Object.keys(indexOptions({ unique: undefined, name: undefined }))).toEqual([]);
    expect(indexOptions({ unique: true })).toEqual({ unique: true });
    expect(indexOptions({ name: "by_state" })).toEqual({ name: "by_state" });
    expect(indexOptions({ unique: false, name: "n", partialFilterExpression: { state: "Draft" } })).toEqual({
      unique: false,
      name: "n",
      partialFilterExpression: { state: "Draft" },
    });
  });
});

describe("index builds", () => {
  /** A driver collection whose builds finish only when the test says so. */
  const pendingBuilds = () => {
    const builds: Array<{ keys: unknown; options: Record<string, unknown>; finish: () => void }> = [];
    const collection = {
      collectionName: "events",
      listIndexes: () => ({ toArray: async () => [{ v: 2, name: "_id_", key: { _id: 1 } }] }),
      aggregate: () => ({ toArray: async () => [] }),
      createIndex: (keys: unknown, options: Record<string, unknown>) =>
        new Promise<string>((resolve) => builds.push({ keys, options, finish: () => resolve(options.name as string) })),
    } as unknown as ConstructorParameters<typeof MongoStoreCollection>[0];
    const background: Array<{ collection: string; index: string; build: Promise<unknown> }> = [];
    const context: MongoCollectionContext = {
      indexes: new Map(),
      sessionOf: () => undefined,
      ownTransaction: () => Promise.reject(new Error("not used")),
      buildInBackground: (name, index, build) => background.push({ collection: name, index, build }),
    };
    return { builds, background, events: new MongoStoreCollection(collection, context) };
  };

  it("does not wait for a non-unique index: the process serves while it builds", async () => {
    const { builds, background, events } = pendingBuilds();
    expect(await events.createIndex({ createdAt: 1 })).toBe("createdAt_1");
    expect(builds).toHaveLength(1);
    expect(builds[0]!.options).toMatchObject({ name: "createdAt_1", commitQuorum: "majority" });
    expect(background.map(({ collection, index }) => [collection, index])).toEqual([["events", "createdAt_1"]]);
    builds[0]!.finish();
    await background[0]!.build;
  });

  it("waits for a unique index, a rule nothing may be written before", async () => {
    const { builds, background, events } = pendingBuilds();
    let created = false;
    const creating = events.createIndex({ name: 1 }, { unique: true }).then(() => (created = true));
    await vi.waitFor(() => expect(builds).toHaveLength(1));
    expect(created).toBe(false);
    builds[0]!.finish();
    await creating;
    expect(background).toEqual([]);
  });
});

describe("insertMany without a session (a transaction of its own)", () => {
  const collision = bulkDuplicate('E11000 duplicate key error collection: db.users index: logins_unique dup key: { logins: "bob" }', {
    _id: 2,
    logins: ["bob", "bob@x.io"],
  });
  const context = (): MongoCollectionContext & { listings: number } => ({
    listings: 0,
    indexes: new Map(),
    sessionOf: () => undefined,
    ownTransaction: () => Promise.reject(collision),
    buildInBackground: () => undefined,
  });
  /** The driver's collection as far as the adapter touches it on this path. */
  const driverCollection = (listed: unknown[], ctx: { listings: number }) =>
    ({
      collectionName: "users",
      listIndexes: () => ({ toArray: async () => (ctx.listings++, listed) }),
    }) as unknown as ConstructorParameters<typeof MongoStoreCollection>[0];

  it("reports the collision with its collection, index, key pattern and values, not as the transaction's", async () => {
    const ctx = context();
    ctx.indexes.set("users", new Map([["logins_unique", { logins: 1 }]]));
    const users = new MongoStoreCollection(driverCollection([], ctx), ctx);
    const err = await users.insertMany([{ _id: 1 }, { _id: 2 }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateKeyError);
    expect(err).toMatchObject({ index: "logins_unique", keyPattern: { logins: 1 }, keyValue: { logins: ["bob", "bob@x.io"] } });
    expect((err as Error).message).toMatch(/already exists in users$/);
  });

  it("asks the server for the key pattern of an index this process did not create", async () => {
    const ctx = context();
    const listed = [{ v: 2, name: "logins_unique", key: { logins: 1 }, unique: true }];
    const users = new MongoStoreCollection(driverCollection(listed, ctx), ctx);
    const err = await users.insertMany([{ _id: 1 }, { _id: 2 }]).catch((e: unknown) => e);
    expect(err).toMatchObject({ index: "logins_unique", keyPattern: { logins: 1 } });
    expect(ctx.listings).toBe(1);
  });
});

describe("what the engine pins, whatever the connection string says", () => {
  it("reads from the primary, writes with a journaled majority and retries, over a URL asking otherwise", async () => {
    const url =
      "mongodb://127.0.0.1:9/?readPreference=secondaryPreferred&w=0&journal=false&readConcernLevel=available&retryWrites=false&retryReads=false";
    const careless = new MongoClient(url);
    expect([careless.readPreference.mode, careless.writeConcern?.w, careless.readConcern?.level]).toEqual([
      "secondaryPreferred",
      0,
      "available",
    ]);
    // As the engine builds its client: its pinned options win over the URL's.
    const pinned = new MongoClient(url, { serverSelectionTimeoutMS: 50, ...pinnedClientOptions });
    expect(pinned.readPreference.mode).toBe("primary");
    expect(pinned.writeConcern).toMatchObject({ w: "majority", journal: true });
    expect(pinned.readConcern?.level).toBe("local");
    expect([pinned.options.retryWrites, pinned.options.retryReads]).toEqual([true, true]);
    await Promise.all([careless.close(), pinned.close()]);
  });
});

describe("the server check at open", () => {
  it("refuses a standalone server for good, and waits for a replica set being initiated or electing", () => {
    expect(topologyProblem({ isWritablePrimary: true })).toMatchObject({
      lasting: true,
      problem: expect.stringMatching(/standalone.*--replSet rs0.*rs.initiate\(\)/),
    });
    expect(topologyProblem({ isreplicaset: true })).toMatchObject({ lasting: false, problem: expect.stringMatching(/not initiated yet/) });
    expect(topologyProblem({ setName: "rs0", isWritablePrimary: false })).toMatchObject({
      lasting: false,
      problem: expect.stringMatching(/no primary/),
    });
    expect(topologyProblem({ setName: "rs0", isWritablePrimary: true })).toBeUndefined();
    expect(topologyProblem({ msg: "isdbgrid" })).toBeUndefined();
  });

  it("wants MongoDB 5.0 or newer (keys with $ and . in flag parameters and signal payloads)", () => {
    for (const old of ["4.4.29", "4.2.0", "3.6.23"]) expect(versionAtLeastMinimum(old), old).toBe(false);
    for (const recent of ["5.0", "5.0.31", "6.0.20", "7.0.2", "8.0.4", "10.0.0"]) expect(versionAtLeastMinimum(recent), recent).toBe(true);
  });
});

describe("readiness against an unreachable MongoDB", () => {
  const servers: Array<{ close: () => Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("ping gives up at its own timeout, not the client's server selection timeout", async () => {
    const server = await silentServer();
    servers.push(server);
    // Ten minutes of server selection: without its own timeout the ping would outlive this test.
    const client = new MongoClient(`mongodb://127.0.0.1:${server.port}/?serverSelectionTimeoutMS=600000`);
    try {
      const err = await pingDatabase(client.db("vexil"), 100).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotReady);
      expect((err as Error).message).toMatch(/not reachable: no answer within 100 ms/);
    } finally {
      await client.close();
    }
  });

  it("fails to open with NotReady when no server can be selected", async () => {
    const server = await silentServer();
    servers.push(server);
    const err = await createMongoEngine({
      url: `mongodb://127.0.0.1:${server.port}/`,
      database: "vexil",
      clientOptions: { serverSelectionTimeoutMS: 100 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotReady);
  });
});
