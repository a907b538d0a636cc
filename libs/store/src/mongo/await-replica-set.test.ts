import { describe, expect, it } from "vitest";
import { awaitReplicaSet } from "./await-replica-set.js";
import type { Topology } from "./server-check.js";

/** A server answering `hello` with each of `answers` in turn (an Error: unreachable), the last one for ever. */
function server(...answers: Array<Topology | Error>) {
  let asked = 0;
  return {
    get asked() {
      return asked;
    },
    hello: async (): Promise<Topology> => {
      const answer = answers[Math.min(asked++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe("awaitReplicaSet (npm run test:mongo's first step)", () => {
  it("waits while the server is unreachable, not initiated and electing, telling each reason once", async () => {
    const lines: string[] = [];
    const mongo = server(
      new Error("connect ECONNREFUSED 127.0.0.1:27017"),
      new Error("connect ECONNREFUSED 127.0.0.1:27017"),
      { isreplicaset: true },
      { setName: "rs0", isWritablePrimary: false },
      { setName: "rs0", isWritablePrimary: true },
    );
    await awaitReplicaSet({ hello: mongo.hello, pauseMs: 1, log: (line) => lines.push(line) });
    expect(mongo.asked).toBe(5);
    expect(lines).toEqual([
      "waiting for MongoDB: not reachable (connect ECONNREFUSED 127.0.0.1:27017)",
      expect.stringMatching(/^waiting for MongoDB: .*replica set is not initiated yet: run rs.initiate\(\) once$/),
      "waiting for MongoDB: the replica set rs0 has no primary yet (an election is under way)",
    ]);
  });

  it("refuses a standalone server at its first answer, saying how to make it a replica set", async () => {
    const mongo = server({ isWritablePrimary: true });
    const err = await awaitReplicaSet({ hello: mongo.hello, pauseMs: 1 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^MongoDB cannot run the tests: it is a standalone server.*--replSet rs0.*rs.initiate\(\)/);
    expect(mongo.asked).toBe(1);
  });

  it("gives up past its timeout with the last reason", async () => {
    const mongo = server({ isreplicaset: true });
    const err = await awaitReplicaSet({ hello: mongo.hello, pauseMs: 5, timeoutMs: 30 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^MongoDB was not ready within 0.03 s: .*not initiated yet/);
    expect(mongo.asked).toBeGreaterThan(1);
  });
});
