import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { startReceiver, type Receiver } from "./addons-receiver.js";

// Private targets are not allowed here (the default): the receiver on localhost must never be reached.
let vexil: TestSystem;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  vexil = await startTestSystem({ env: { ADDONS_MAX_ATTEMPTS: "3", ADDONS_BACKOFF_BASE_MS: "20", ADDONS_BACKOFF_MAX_MS: "100" } });
});
afterAll(async () => {
  await vexil?.stop();
  await receiver?.close();
});

describe("server-side request forgery protection", () => {
  it.each([
    ["loopback IPv4", "http://127.0.0.1:8080/hook", /127\.0\.0\.1, a loopback address/],
    ["loopback IPv6", "http://[::1]:8080/hook", /::1, a loopback address/],
    ["private 10/8", "http://10.1.2.3/hook", /a private address/],
    ["private 172.16/12", "http://172.20.0.1/hook", /a private address/],
    ["private 192.168/16", "http://192.168.0.10/hook", /a private address/],
    ["link-local (cloud metadata)", "http://169.254.169.254/latest/meta-data", /link-local/],
    ["unique local IPv6", "http://[fd00::1]/hook", /unique local/],
    ["link-local IPv6", "http://[fe80::1]/hook", /link-local/],
    ["unspecified", "http://0.0.0.0:8080/", /unspecified/],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]/", /loopback/],
  ])("refuses a %s target when saved, naming the reason", async (_case, url, reason) => {
    for (const provider of ["webhook", "teams"]) {
      const res = await vexil.api("/api/admin/addons", {
        method: "POST",
        body: { provider, enabled: true, parameters: { url }, events: ["feature-created"] },
      });
      expect(res.status).toBe(400);
      const error = await res.json();
      expect(error.name).toBe("ValidationError");
      expect(error.message).toMatch(reason);
      expect(error.message).toMatch(/ADDONS_ALLOW_PRIVATE_URLS/);
    }
  });

  it.each(["default", "ssrf-fresh"])(
    "refuses at delivery a host name that resolves to a loopback address, without connecting (flag in %s)",
    async (project) => {
      if (project !== "default") await vexil.createProject(project);
      const created = await vexil.api("/api/admin/addons", {
        method: "POST",
        body: {
          provider: "webhook",
          enabled: true,
          parameters: { url: `http://localhost:${receiver.port}/ssrf` },
          events: ["feature-created"],
          projects: [project],
        },
      });
      expect(created.status).toBe(200);
      const { id } = await created.json();
      const flag = await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: `ssrf-${project}` } });
      expect(flag.status).toBe(201);
      const log = async () => (await (await vexil.api(`/api/admin/addons/${id}/events`)).json()).integrationEvents;
      await vi.waitFor(async () => expect((await log())[0]?.state).toBe("failed"), { timeout: 10_000, interval: 25 });
      const entries = await log();
      // Refused outright: no retries, since the answer would not change.
      expect(entries).toHaveLength(1);
      expect(entries[0].stateDetails).toMatch(/^Refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
      expect(receiver.received).toEqual([]);
    },
  );
});
