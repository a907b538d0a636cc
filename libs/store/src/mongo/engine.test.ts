import net from "node:net";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, it } from "vitest";
import { NotReady } from "@vexil/errors";
import { indexOptions } from "./collection.js";
import { createMongoEngine, pingDatabase } from "./engine.js";

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
