import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().trim().split("\n"));
      done();
    },
  });
  return { lines, destination };
}

describe("createLogger", () => {
  it("tags lines with the service and module", () => {
    const { lines, destination } = capture();
    createLogger({ service: "admin", destination }).child({ module: "segments" }).info("hello");
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ service: "admin", module: "segments", msg: "hello", level: 30 });
  });

  it("a root without a service lets each service's child name itself once", () => {
    const { lines, destination } = capture();
    createLogger({ destination }).child({ service: "admin" }).info("hello");
    expect(lines[0]!.match(/"service":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: "admin", msg: "hello" });
  });

  it("never writes secrets", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "admin", destination });
    const secret = "*:*.0123456789abcdef0123456789abcdef";
    log.info({ req: { headers: { authorization: secret, cookie: `session=${secret}` } } }, "request");
    log.info({ apiToken: { secret, tokenName: "ci" } }, "token created");
    log.info({ user: { email: "a@b.c", password: "hunter2" } }, "user created");
    const all = lines.join("\n");
    expect(all).not.toContain(secret);
    expect(all).not.toContain("hunter2");
    expect(all).toContain("ci");
    expect(all).toContain("[redacted]");
  });

  it("honours the level", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "admin", level: "warn", destination });
    log.info("quiet");
    log.warn("loud");
    expect(lines).toHaveLength(1);
  });
});
