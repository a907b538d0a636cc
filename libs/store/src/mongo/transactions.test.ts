import { MongoNetworkError, MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { NotReady, toVexilError } from "@vexil/errors";
import { StoreBusyError } from "../errors.js";
import { runTransaction, transactionOptions, type RetryPolicy, type TransactionSession } from "./transactions.js";

/** A driver session stand-in that records what the loop asks of it; commits answer as told. */
function fakeSession(commits: Array<unknown> = []) {
  const calls: string[] = [];
  let open = false;
  const session: TransactionSession = {
    startTransaction(options) {
      expect(options).toBe(transactionOptions);
      calls.push("start");
      open = true;
    },
    async commitTransaction() {
      calls.push("commit");
      const outcome = commits.shift();
      if (outcome instanceof Error) throw outcome;
      open = false;
    },
    async abortTransaction() {
      calls.push("abort");
      open = false;
    },
    inTransaction: () => open,
  };
  return { session, calls };
}

/** A clock that only moves when the loop sleeps, and a jitter at the top of each range unless given. */
function fakePolicy(timeoutMs: number, random = () => 1): RetryPolicy & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    timeoutMs,
    baseDelayMs: 5,
    maxDelayMs: 1000,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(Math.round(ms));
      now += ms;
    },
    random,
    sleeps,
  };
}

const conflict = () =>
  new MongoServerError({ message: "WriteConflict", code: 112, codeName: "WriteConflict", errorLabels: ["TransientTransactionError"] });

describe("the transaction loop", () => {
  it("runs the callback again after a transient error, waiting a random part of a doubling delay each time", async () => {
    const { session, calls } = fakeSession();
    const policy = fakePolicy(60_000);
    let attempts = 0;
    const result = await runTransaction(
      session,
      async () => {
        if (++attempts <= 8) throw conflict();
        return "committed";
      },
      policy,
    );
    expect(result).toBe("committed");
    expect(attempts).toBe(9);
    // 5 ms doubling, capped at 1 s; the jitter here is at the top of each range.
    expect(policy.sleeps).toEqual([5, 10, 20, 40, 80, 160, 320, 640]);
    expect(calls).toEqual([...Array.from({ length: 8 }, () => ["start", "abort"]).flat(), "start", "commit"]);
  });

  it("spreads the waits of conflicting writers: full jitter, never more than the cap", async () => {
    const draws = [0.1, 0.9, 0.5, 0.0, 0.7, 0.3, 0.99, 0.2, 0.6, 0.4, 0.8, 0.05];
    const policy = fakePolicy(60_000, () => draws.shift()!);
    let attempts = 0;
    await runTransaction(
      fakeSession().session,
      async () => {
        if (++attempts <= 12) throw conflict();
      },
      policy,
    );
    const caps = [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000];
    expect(policy.sleeps).toEqual(
      [0.1, 0.9, 0.5, 0, 0.7, 0.3, 0.99, 0.2, 0.6, 0.4, 0.8, 0.05].map((draw, i) => Math.round(draw * caps[i]!)),
    );
  });

  it("stops at its deadline with StoreBusyError (503) instead of spinning on, aborting what it started", async () => {
    const { session, calls } = fakeSession();
    const policy = fakePolicy(2000);
    let attempts = 0;
    const err = await runTransaction(
      session,
      async () => {
        attempts++;
        throw conflict();
      },
      policy,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreBusyError);
    expect(toVexilError(err).status).toBe(503);
    expect((err as Error).message).toMatch(/could not be committed within 2000 ms: other writes kept conflicting.*Nothing was written/);
    expect((err as Error).cause).toBeInstanceOf(MongoServerError);
    expect(policy.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(2000);
    expect(attempts).toBe(policy.sleeps.length + 1);
    expect(calls.at(-1)).toBe("abort");
  });

  it("commits again when the outcome of a commit is unknown, and says so if it never learns it", async () => {
    const unknown = () => new MongoServerError({ message: "not primary", code: 10107, errorLabels: ["UnknownTransactionCommitResult"] });
    const retried = fakeSession([unknown(), unknown()]);
    expect(await runTransaction(retried.session, async () => 1, fakePolicy(60_000))).toBe(1);
    expect(retried.calls).toEqual(["start", "commit", "commit", "commit"]);

    const never = fakeSession(Array.from({ length: 100 }, unknown));
    const err = await runTransaction(never.session, async () => 1, fakePolicy(500)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreBusyError);
    expect((err as Error).message).toMatch(/may or may not have been applied/);
  });

  it("runs the whole transaction again when the commit itself conflicts", async () => {
    const { session, calls } = fakeSession([conflict()]);
    let attempts = 0;
    await runTransaction(session, async () => void attempts++, fakePolicy(60_000));
    expect(attempts).toBe(2);
    expect(calls).toEqual(["start", "commit", "start", "commit"]);
  });

  it("gives up on other errors at once, and on an unreachable server at the deadline with NotReady", async () => {
    const { session, calls } = fakeSession();
    const duplicate = new MongoServerError({ message: "E11000", code: 11000 });
    await expect(runTransaction(session, () => Promise.reject(duplicate), fakePolicy(60_000))).rejects.toBe(duplicate);
    expect(calls).toEqual(["start", "abort"]);

    const network = new MongoNetworkError("connection refused");
    network.addErrorLabel("TransientTransactionError");
    const err = await runTransaction(fakeSession().session, () => Promise.reject(network), fakePolicy(1000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotReady);
    expect(err).not.toBeInstanceOf(StoreBusyError);
    expect((err as Error).message).toMatch(/not reachable/);
  });

  it("pins primary reads, a majority snapshot and majority commits, whatever the connection string says", () => {
    expect(transactionOptions).toEqual({ readPreference: "primary", readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
  });
});
