import type { Logger } from "pino";

/**
 * What a start tells whoever ran it (where it answers, a token created now, the first user): text
 * on a terminal; one log record (`msg` and the `banner` lines) when the output is a log stream, so
 * it is parsed like every other line instead of breaking the JSON lines.
 */
export function announce(logger: Logger, message: string, lines: string[], out: NodeJS.WriteStream = process.stdout): void {
  if (out.isTTY) out.write(["", message, ...lines, "", ""].join("\n"));
  else logger.info({ banner: lines }, message);
}
