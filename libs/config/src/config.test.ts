import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, envSchemas, loadConfig } from "./config.js";

const schema = z.object({
  PORT: envSchemas.port.default(4242),
  NATS_URL: envSchemas.url.optional(),
  LOG_LEVEL: envSchemas.logLevel.default("info"),
  FRONTEND_API_ENABLED: envSchemas.booleanString.default("true"),
  INIT_ADMIN_API_TOKENS: envSchemas.commaList.default(""),
});

describe("loadConfig", () => {
  it("applies defaults and treats empty strings as unset", () => {
    const config = loadConfig(schema, { PORT: "", LOG_LEVEL: undefined });
    expect(config).toEqual({ PORT: 4242, LOG_LEVEL: "info", FRONTEND_API_ENABLED: true, INIT_ADMIN_API_TOKENS: [] });
  });

  it("coerces and splits", () => {
    const config = loadConfig(schema, {
      PORT: "5000",
      FRONTEND_API_ENABLED: "false",
      INIT_ADMIN_API_TOKENS: "*:*.a, *:*.b",
    });
    expect(config.PORT).toBe(5000);
    expect(config.FRONTEND_API_ENABLED).toBe(false);
    expect(config.INIT_ADMIN_API_TOKENS).toEqual(["*:*.a", "*:*.b"]);
  });

  it("lists every bad variable in one error", () => {
    try {
      loadConfig(schema, { PORT: "not-a-port", NATS_URL: "nope", LOG_LEVEL: "loud" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems).toHaveLength(3);
      expect(problems.join()).toMatch(/PORT/);
      expect(problems.join()).toMatch(/NATS_URL/);
      expect(problems.join()).toMatch(/LOG_LEVEL/);
    }
  });

  it("returns a frozen object", () => {
    const config = loadConfig(schema, {});
    expect(Object.isFrozen(config)).toBe(true);
  });
});
