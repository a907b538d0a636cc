import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@vexil/config";
import { clusterEnv, gatewayEnv } from "./config.js";

describe("gateway settings", () => {
  it("runs every service in one process on 4242 by default, with the cluster's addresses preset", () => {
    const config = loadConfig(gatewayEnv, {});
    expect(config).toMatchObject({
      PORT: 4242,
      GATEWAY_MODE: "single",
      ADMIN_URL: ["http://127.0.0.1:4243"],
      FRONTEND_EVAL_URL: ["http://127.0.0.1:4244"],
      SIGNAL_INGEST_URL: ["http://127.0.0.1:4245"],
      DATA_DIR: "./data",
      // Facing the clients, often directly: no peer's X-Forwarded-For is believed until proxies are named.
      TRUST_PROXY: "none",
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
      ADMIN_URL: ["http://admin.internal:3000"],
      PUBLIC_URL: "https://flags.example.com",
      SIGNAL_INGEST_URL: ["http://127.0.0.1:4245"],
    });
  });

  it("takes a comma-separated address per replica, and refuses a list with one that is no URL", () => {
    expect(loadConfig(gatewayEnv, { FRONTEND_EVAL_URL: "http://10.0.0.5:4244, http://10.0.0.6:4244" }).FRONTEND_EVAL_URL).toEqual([
      "http://10.0.0.5:4244",
      "http://10.0.0.6:4244",
    ]);
    expect(() => loadConfig(gatewayEnv, { FRONTEND_EVAL_URL: "http://10.0.0.5:4244,nope" })).toThrow(/FRONTEND_EVAL_URL/);
    expect(() => loadConfig(gatewayEnv, { FRONTEND_EVAL_URL: " , " })).toThrow(/FRONTEND_EVAL_URL/);
  });

  it("refuses an unknown mode, a port out of range and an address that is no URL, naming each", () => {
    const error = (() => {
      try {
        loadConfig(gatewayEnv, { GATEWAY_MODE: "split", PORT: "70000", ADMIN_URL: "not a url", TRUST_PROXY: "loopback, my-proxy" });
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.split(/[:.]/)[0]).sort()).toEqual([
      "ADMIN_URL",
      "GATEWAY_MODE",
      "PORT",
      "TRUST_PROXY",
    ]);
  });

  it("takes proxies in express's syntax for TRUST_PROXY", () => {
    for (const value of ["loopback", "10.0.0.0/8, 192.168.1.7", "uniquelocal, linklocal", "none"]) {
      expect(loadConfig(gatewayEnv, { TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    }
  });

  it("gives the cluster launcher its port and the NATS and Redis on this machine by default", () => {
    expect(loadConfig(clusterEnv, {})).toEqual({
      PORT: 4242,
      NATS_URL: "nats://127.0.0.1:4222",
      REDIS_URL: "redis://127.0.0.1:6379",
      ADMIN_REPLICAS: 1,
      FRONTEND_EVAL_REPLICAS: 1,
      SIGNAL_INGEST_REPLICAS: 1,
      ADDON_DELIVERY_REPLICAS: 1,
    });
    expect(loadConfig(clusterEnv, { FRONTEND_EVAL_REPLICAS: "3" }).FRONTEND_EVAL_REPLICAS).toBe(3);
    expect(() => loadConfig(clusterEnv, { FRONTEND_EVAL_REPLICAS: "0" })).toThrow(/FRONTEND_EVAL_REPLICAS/);
    expect(loadConfig(clusterEnv, { PORT: "5000", NATS_URL: "nats://nats:4222" })).toMatchObject({
      PORT: 5000,
      NATS_URL: "nats://nats:4222",
    });
    expect(() => loadConfig(clusterEnv, { REDIS_URL: "not a url" })).toThrow(/REDIS_URL/);
  });
});
