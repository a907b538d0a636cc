import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { announce } from "./banner.js";
import { createLogger } from "./logger.js";

/** A stream that keeps what is written, a terminal or not. */
function output(isTTY: boolean) {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream: Object.assign(stream, { isTTY }) as unknown as NodeJS.WriteStream, text: () => text };
}

describe("announce", () => {
  const lines = ["Admin API token (created now, shown once; keep it):", "  *:*.abc123"];

  it("writes the banner as text on a terminal, and no log line", () => {
    const log = output(false);
    const terminal = output(true);
    announce(
      createLogger({ service: "gateway", destination: log.stream }),
      "Vexil is running at http://localhost:4242",
      lines,
      terminal.stream,
    );
    expect(terminal.text()).toBe(
      "\nVexil is running at http://localhost:4242\nAdmin API token (created now, shown once; keep it):\n  *:*.abc123\n\n",
    );
    expect(log.text()).toBe("");
  });

  it("logs it as one JSON record when the output is not a terminal", () => {
    const log = output(false);
    const piped = output(false);
    announce(
      createLogger({ service: "gateway", destination: log.stream }),
      "Vexil is running at http://localhost:4242",
      lines,
      piped.stream,
    );
    expect(piped.text()).toBe("");
    const records = log
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 30, service: "gateway", msg: "Vexil is running at http://localhost:4242", banner: lines });
  });
});
