import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@vexil/config";
import { clusterEnv, gatewayEnv } from "./config.js";

describe("gateway settings", () => {
  it("runs every service in one process on 4242 by default, with the cluster's addresses preset", () => {
    const config = loadConfig(gatewayEnv, {});
    expect(config).toMatchObject({
      PORT: 4242,
      GATEWAY_MODE: "single",
      ADMIN_URL: "http://127.0.0.1:4243",
      FRONTEND_EVAL_URL: "http://127.0.0.1:4244",
      SIGNAL_INGEST_URL: "http://127.0.0.1:4245",
      DATA_DIR: "./data",
    });
    expect(config.PUBLIC_URL).toBeUndefined();
  });

  it("takes the environment's values, an empty one counting as unset", () => {
    const config = loadConfig(gatewayEnv, {
      PORT: "8080",
      GATEWAY_MODE: "cluster",
      ADMIN_URL: "http://admin.internal:3000",
      PUBLIC_URL: "https://flags.example.com",
      SIGNAL_INGEST_URL: "",
    });
    expect(config).toMatchObject({
      PORT: 8080,
      GATEWAY_MODE: "cluster",
      ADMIN_URL: "http://admin.internal:3000",
      PUBLIC_URL: "https://flags.example.com",
      SIGNAL_INGEST_URL: "http://127.0.0.1:4245",
    });
  });

  it("refuses an unknown mode, a port out of range and an address that is no URL, naming each", () => {
    const error = (() => {
      try {
        loadConfig(gatewayEnv, { GATEWAY_MODE: "split", PORT: "70000", ADMIN_URL: "not a url" });
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.split(":")[0]).sort()).toEqual(["ADMIN_URL", "GATEWAY_MODE", "PORT"]);
  });

  it("gives the cluster launcher its port and the NATS and Redis on this machine by default", () => {
    expect(loadConfig(clusterEnv, {})).toEqual({ PORT: 4242, NATS_URL: "nats://127.0.0.1:4222", REDIS_URL: "redis://127.0.0.1:6379" });
    expect(loadConfig(clusterEnv, { PORT: "5000", NATS_URL: "nats://nats:4222" })).toMatchObject({
      PORT: 5000,
      NATS_URL: "nats://nats:4222",
    });
    expect(() => loadConfig(clusterEnv, { REDIS_URL: "not a url" })).toThrow(/REDIS_URL/);
  });
});
