/** What a failure log writes through: a pino logger, or any with its three methods. */
export interface FailureLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface FailureLog {
  /** One failure more: logged at error when the run of failures starts, then at most once per interval. */
  failed(err: unknown, fields?: object): void;
  /** The work succeeded: ends a run of failures, logging how many and how long. */
  succeeded(): void;
  /** Failures since the last success. */
  readonly failures: number;
}

/**
 * Logs a failure that repeats while an outage lasts (Redis or NATS away, work retried every second)
 * as one line, not one per attempt: the first failure at error with its `err`, then at most one warn
 * line per `everyMs` with the count of failures so far, since when and the last reason, and one
 * info line when it works again.
 */
export function failureLog(
  logger: FailureLogger,
  { failing, stillFailing, recovered, everyMs = 60_000 }: { failing: string; stillFailing: string; recovered: string; everyMs?: number },
  now: () => number = Date.now,
): FailureLog {
  let failures = 0;
  let since = 0;
  let loggedAt = 0;
  return {
    failed(err, fields = {}) {
      failures++;
      const at = now();
      if (failures === 1) {
        since = at;
        loggedAt = at;
        logger.error({ ...fields, err }, failing);
      } else if (at - loggedAt >= everyMs) {
        loggedAt = at;
        logger.warn(
          { ...fields, failures, since: new Date(since), reason: err instanceof Error ? err.message : String(err) },
          stillFailing,
        );
      }
    },
    succeeded() {
      if (failures === 0) return;
      logger.info({ failures, seconds: (now() - since) / 1000 }, recovered);
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}
