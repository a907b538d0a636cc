import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  /**
   * Bound to every line. Leave it out for a root that several services share in one process: each
   * takes `child({ service })`, and a line never carries the key twice.
   */
  service?: string;
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/**
 * Credentials must never reach a log line: API tokens travel in `authorization`, sessions in
 * cookies, and token/user records carry `secret` and password fields.
 */
export const redactedPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "headers.authorization",
  "authorization",
  "secret",
  "*.secret",
  "token",
  "*.token",
  "password",
  "*.password",
  "passwordHash",
  "*.passwordHash",
];

export function createLogger({ service, level = "info", destination }: LoggerOptions): Logger {
  const options = {
    level,
    base: service ? { service } : {},
    redact: { paths: redactedPaths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
