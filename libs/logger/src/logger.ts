import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  service: string;
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
    base: { service },
    redact: { paths: redactedPaths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
