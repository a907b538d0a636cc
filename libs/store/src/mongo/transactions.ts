import { MongoError, MongoServerError, type ReadPreferenceMode, type TransactionOptions as DriverTransactionOptions } from "mongodb";
import { NotReady } from "@vexil/errors";
import { StoreBusyError } from "../errors.js";
import { isUnavailable } from "./errors.js";

/**
 * What every transaction runs with, whatever the connection string says: the primary, a snapshot
 * of majority-committed data (MongoDB guarantees it only with a majority commit, hence both), and a
 * commit acknowledged by a majority, so no failover can roll back what a caller was told is done.
 */
export const transactionOptions: DriverTransactionOptions = {
  readPreference: "primary" satisfies ReadPreferenceMode,
  readConcern: { level: "snapshot" },
  writeConcern: { w: "majority" },
};

/** The part of the driver's ClientSession the loop drives (so it can be tested without a server). */
export interface TransactionSession {
  startTransaction(options?: DriverTransactionOptions): void;
  commitTransaction(): Promise<unknown>;
  abortTransaction(): Promise<unknown>;
  inTransaction(): boolean;
}

export interface RetryPolicy {
  /** How long the whole transaction may take, its runs again after conflicts included. */
  timeoutMs: number;
  /** The first pause before running again; it doubles each time, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** In [0, 1): the jitter. */
  random(): number;
}

export const defaultRetryPolicy = (timeoutMs: number): RetryPolicy => ({
  timeoutMs,
  baseDelayMs: 5,
  maxDelayMs: 1000,
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
});

const hasLabel = (err: unknown, label: string) => err instanceof MongoError && err.hasErrorLabel(label);
const isMaxTimeExpired = (err: unknown) =>
  err instanceof MongoServerError && (err.code === 50 || (err.writeConcernError as { code?: number } | undefined)?.code === 50);

/**
 * Runs `fn` in a transaction on `session`, as the driver's `withTransaction` does (again after a
 * TransientTransactionError, the commit again after an UnknownTransactionCommitResult), with two
 * differences: each run again waits first, a random part of a delay that doubles each time ("full
 * jitter"), so writers that keep conflicting on one document (the events counter) spread out
 * instead of spinning; and the whole stops at `timeoutMs` with StoreBusyError (a 503), where the
 * driver would go on for 120 s and then fail with the conflict itself.
 */
export async function runTransaction<R>(session: TransactionSession, fn: () => Promise<R>, policy: RetryPolicy): Promise<R> {
  const deadline = policy.now() + policy.timeoutMs;
  let retries = 0;
  /** Waits before the next try, or gives up when that would pass the deadline. */
  const pause = async (err: unknown, commitOutcomeUnknown: boolean) => {
    const delay = policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retries++);
    if (policy.now() + delay < deadline) return policy.sleep(delay);
    if (commitOutcomeUnknown) {
      throw new StoreBusyError(
        `MongoDB did not confirm the commit within ${policy.timeoutMs} ms (${(err as Error).message}): the change may or may not have been applied; check before trying again`,
        { cause: err },
      );
    }
    if (isUnavailable(err)) throw new NotReady(`MongoDB is not reachable: ${(err as Error).message}`);
    throw new StoreBusyError(
      `The change could not be committed within ${policy.timeoutMs} ms: other writes kept conflicting with it (${(err as Error).message}). Nothing was written; try again`,
      { cause: err },
    );
  };
  for (;;) {
    session.startTransaction(transactionOptions);
    let result: R;
    try {
      result = await fn();
    } catch (err) {
      if (session.inTransaction()) await session.abortTransaction();
      if (!hasLabel(err, "TransientTransactionError")) throw err;
      await pause(err, false);
      continue;
    }
    let runAgain = false;
    while (!runAgain) {
      try {
        await session.commitTransaction();
        return result;
      } catch (err) {
        if (hasLabel(err, "UnknownTransactionCommitResult") && !isMaxTimeExpired(err)) {
          await pause(err, true);
        } else if (hasLabel(err, "TransientTransactionError")) {
          await pause(err, false);
          runAgain = true;
        } else {
          throw err;
        }
      }
    }
  }
}
