import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection, StoreEngine, StoreSession } from "./collection.js";
import { DuplicateKeyError } from "./errors.js";

/** What the suite must know about an engine to set up the same interleavings on it. */
export interface EngineTraits {
  /**
   * Transactions run one at a time (the embedded engine: one writer). A second transaction waits
   * until the first has committed, so it can neither conflict nor interleave its reads with the
   * first's: those races cannot happen there, and the tests assert the serial order that rules
   * them out. MongoDB runs transactions on snapshots at once, first writer wins, and retries the loser.
   */
  serialTransactions: boolean;
}

interface Doc {
  _id: string | number;
  name?: string;
  n?: number;
  by?: string;
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Waits for `condition`, turning the event loop, with a deadline generous enough for a loaded machine. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Transactions racing each other, on the port: what both engines guarantee, set up with gates so
 * each interleaving happens as described (never by timing). On MongoDB they run concurrently and
 * conflict; on the embedded engine they queue, and each test says what it asserts instead.
 */
export function describeConcurrencyContract(name: string, makeEngine: () => Promise<StoreEngine>, traits: EngineTraits): void {
  describe(`Concurrent transactions: ${name}`, () => {
    let engine: StoreEngine;
    const run = randomUUID().slice(0, 8);
    let count = 0;
    const fresh = (): Collection<Doc> => engine.collection<Doc>(`concurrency_${run}_${++count}`);

    beforeAll(async () => {
      engine = await makeEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    /**
     * Starts `second` while `first` is held open inside its transaction (after what it did before
     * calling `hold`), and lets `first` go on once `second` has been turned back by a conflict at
     * least once (`until: "conflict"`) or has finished (`until: "finished"`) — on MongoDB. On the
     * embedded engine `second` queues behind `first`, which goes on at once.
     */
    async function race<A, B>(
      first: (session: StoreSession, hold: () => Promise<void>) => Promise<A>,
      second: (session: StoreSession) => Promise<B>,
      { until: awaited }: { until: "conflict" | "finished" },
    ): Promise<{ first: PromiseSettledResult<A>; second: PromiseSettledResult<B>; secondAttempts: number }> {
      const holding = gate();
      const release = gate();
      let secondAttempts = 0;
      const firstRun = engine.withTransaction((session) =>
        first(session, async () => {
          holding.open();
          await release.promise;
        }),
      );
      await holding.promise;
      const secondRun = engine.withTransaction((session) => {
        secondAttempts++;
        return second(session);
      });
      if (traits.serialTransactions) {
        // Queued behind `first`: it cannot start, so waiting for it would never end.
        expect(secondAttempts).toBe(0);
      } else if (awaited === "conflict") {
        // Turned back by the conflict and started again (the driver retries right away).
        await until(() => secondAttempts >= 2, "the second transaction to run again after a conflict");
      } else {
        await secondRun.then(
          () => undefined,
          () => undefined,
        );
      }
      release.open();
      const [firstResult, secondResult] = await Promise.allSettled([firstRun, secondRun]);
      return { first: firstResult, second: secondResult, secondAttempts };
    }

    it("commits concurrent transactions on different documents, each whole", async () => {
      const c = fresh();
      const log = fresh();
      await c.insertMany([
        { _id: 1, n: 0 },
        { _id: 2, n: 0 },
      ]);
      await Promise.all(
        [1, 2].map((id) =>
          engine.withTransaction(async (session) => {
            await c.updateOne({ _id: id }, { $inc: { n: 1 } }, { session });
            await log.insertOne({ _id: `t${id}` }, { session });
          }),
        ),
      );
      expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
        { _id: 1, n: 1 },
        { _id: 2, n: 1 },
      ]);
      expect(await log.countDocuments({})).toBe(2);
    });

    it("loses no update when concurrent transactions read and rewrite the same document", async () => {
      const c = fresh();
      await c.insertOne({ _id: "counter", n: 0 });
      let attempts = 0;
      const writers = 8;
      await Promise.all(
        Array.from({ length: writers }, () =>
          engine.withTransaction(async (session) => {
            attempts++;
            const current = await c.findOne({ _id: "counter" }, { session });
            // A read-modify-write of the whole document: a stale read would lose another's increment.
            await c.replaceOne({ _id: "counter" }, { n: current!.n! + 1 }, { session });
          }),
        ),
      );
      expect((await c.findOne({ _id: "counter" }))?.n).toBe(writers);
      // One at a time, each reads the last one's result and never needs a second attempt.
      if (traits.serialTransactions) expect(attempts).toBe(writers);
      else expect(attempts).toBeGreaterThanOrEqual(writers);
    });

    it("runs the callback again after a conflict, keeping only the last attempt's writes", async () => {
      const c = fresh();
      await c.insertOne({ _id: "x", n: 0 });
      let sawFirstAtStart: boolean | undefined;
      const result = await race(
        async (session, hold) => {
          await c.updateOne({ _id: "x" }, { $set: { by: "first" } }, { session });
          await hold();
        },
        async (session) => {
          sawFirstAtStart ??= (await c.findOne({ _id: "x" }, { session }))?.by === "first";
          await c.insertOne({ _id: `attempt-${randomUUID()}`, name: "attempt" }, { session });
          await c.updateOne({ _id: "x" }, { $inc: { n: 1 }, $set: { by: "second" } }, { session });
        },
        { until: "conflict" },
      );
      expect(result.first.status).toBe("fulfilled");
      expect(result.second.status).toBe("fulfilled");
      expect(await c.findOne({ _id: "x" })).toEqual({ _id: "x", n: 1, by: "second" });
      // However often the callback ran, one attempt's insert survives: the others were rolled back.
      expect(await c.countDocuments({ name: "attempt" })).toBe(1);
      if (traits.serialTransactions) {
        expect(result.secondAttempts).toBe(1);
        expect(sawFirstAtStart).toBe(true);
      } else {
        expect(result.secondAttempts).toBeGreaterThanOrEqual(2);
      }
    });

    it("write skew: a rule checked by a read holds only through a unique index", async () => {
      /** "No two documents named taken": read, then insert under its own _id. */
      const claim = (c: Collection<Doc>, id: string) => async (session: StoreSession) => {
        if (await c.findOne({ name: "taken" }, { session })) return "exists";
        await c.insertOne({ _id: id, name: "taken" }, { session });
        return "inserted";
      };

      const unguarded = fresh();
      // The collection exists before the race: created inside it, by the first transaction's insert,
      // it would be a catalog change on MongoDB that turns the other one back with a WriteConflict
      // (it then runs again, sees the document and declines), which is not the race under test.
      await unguarded.insertOne({ _id: "seed", name: "other" });
      const skew = await race(
        async (session, hold) => {
          const found = await unguarded.findOne({ name: "taken" }, { session });
          await hold();
          if (!found) await unguarded.insertOne({ _id: "first", name: "taken" }, { session });
        },
        claim(unguarded, "second"),
        { until: "finished" },
      );
      expect([skew.first.status, skew.second.status]).toEqual(["fulfilled", "fulfilled"]);
      if (traits.serialTransactions) {
        // The second read came after the first commit: it saw the document and declined.
        expect(await unguarded.countDocuments({ name: "taken" })).toBe(1);
      } else {
        // Both read "none" on their snapshots and wrote different documents: nothing conflicted.
        expect(await unguarded.countDocuments({ name: "taken" })).toBe(2);
      }

      const guarded = fresh();
      await guarded.createIndex({ name: 1 }, { unique: true });
      const indexed = await race(
        async (session, hold) => {
          const found = await guarded.findOne({ name: "taken" }, { session });
          await hold();
          if (!found) await guarded.insertOne({ _id: "first", name: "taken" }, { session });
        },
        claim(guarded, "second"),
        { until: "finished" },
      );
      expect(await guarded.countDocuments({ name: "taken" })).toBe(1);
      for (const outcome of [indexed.first, indexed.second]) {
        if (outcome.status === "rejected") expect(outcome.reason).toBeInstanceOf(DuplicateKeyError);
      }
    });

    describe("sequences taken inside transactions", () => {
      it("follow commit order: a transaction that takes one after another's cannot commit before it", async () => {
        const sequence = `seq_${run}_commit_order`;
        const c = fresh();
        const values: Record<string, number> = {};
        const result = await race(
          async (session, hold) => {
            values.first = await engine.nextSequence(sequence, { session });
            await c.insertOne({ _id: values.first, by: "first" }, { session });
            await hold();
          },
          async (session) => {
            values.second = await engine.nextSequence(sequence, { session });
            await c.insertOne({ _id: values.second, by: "second" }, { session });
          },
          { until: "conflict" },
        );
        expect([result.first.status, result.second.status]).toEqual(["fulfilled", "fulfilled"]);
        // The second took its value while the first held 1 uncommitted: it could only get 2 after that commit.
        expect(values).toEqual({ first: 1, second: 2 });
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 1, by: "first" },
          { _id: 2, by: "second" },
        ]);
      });

      it("are given back by a rolled-back transaction, and never handed out twice", async () => {
        const sequence = `seq_${run}_rollback`;
        await engine.withTransaction((session) => engine.nextSequence(sequence, { session }));
        await expect(
          engine.withTransaction(async (session) => {
            expect(await engine.nextSequence(sequence, { session })).toBe(2);
            expect(await engine.nextSequence(sequence, { session })).toBe(3);
            throw new Error("abort");
          }),
        ).rejects.toThrow("abort");
        expect(await engine.withTransaction((session) => engine.nextSequence(sequence, { session }))).toBe(2);
        const concurrent = await Promise.all(
          Array.from({ length: 6 }, () => engine.withTransaction((session) => engine.nextSequence(sequence, { session }))),
        );
        expect([...concurrent].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8]);
      });
    });
  });
}
