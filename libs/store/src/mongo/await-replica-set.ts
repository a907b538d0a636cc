import { setTimeout as sleep } from "node:timers/promises";
import { MongoClient } from "mongodb";
import { topologyProblem, type Topology } from "./server-check.js";

export interface AwaitReplicaSetOptions {
  /** Asks the server what it is (`hello`); throws while it cannot be reached. */
  hello: () => Promise<Topology>;
  /** How long to wait for a server that is coming up (default 120 s). */
  timeoutMs?: number;
  /** Pause between two asks (default 1 s). */
  pauseMs?: number;
  /** Told what is awaited, once per different reason. */
  log?: (line: string) => void;
}

/**
 * Resolves once the server is the primary of an initiated replica set (or a mongos), asking again
 * while it is unreachable, not initiated yet or electing: what a MongoDB just started by compose
 * goes through before its healthcheck has run `rs.initiate()`. A standalone server is refused at
 * once, saying why: no wait makes it run transactions. Past the timeout, rejects with the last reason.
 */
export async function awaitReplicaSet({ hello, timeoutMs = 120_000, pauseMs = 1000, log }: AwaitReplicaSetOptions): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let told: string | undefined;
  for (;;) {
    let topology: ReturnType<typeof topologyProblem>;
    try {
      topology = topologyProblem(await hello());
    } catch (err) {
      topology = { problem: `not reachable (${(err as Error).message})`, lasting: false };
    }
    if (!topology) return;
    if (topology.lasting) throw new Error(`MongoDB cannot run the tests: ${topology.problem}`);
    const reason = topology.problem;
    if (Date.now() + pauseMs > deadline) {
      throw new Error(`MongoDB was not ready within ${timeoutMs / 1000} s: ${reason}`);
    }
    if (reason !== told) log?.(`waiting for MongoDB: ${reason}`);
    told = reason;
    await sleep(pauseMs);
  }
}

/**
 * `hello` against the server at `url`, each ask on a client of its own so a server that comes up
 * later is seen. A member not initiated yet answers only over a direct connection
 * (`directConnection=true` in the URL); otherwise it shows as unreachable until it is initiated.
 */
export function helloAt(url: string, selectionTimeoutMs = 2000): () => Promise<Topology> {
  return async () => {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: selectionTimeoutMs });
    try {
      return (await client.db("admin").command({ hello: 1 })) as Topology;
    } finally {
      await client.close();
    }
  };
}
