import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { natsUrl, reachable, redisUrl } from "../src/servers.js";

const available = (await reachable(natsUrl)) && (await reachable(redisUrl));
if (!available) console.log(`skipped: revocation over the wire needs NATS at ${natsUrl} and Redis at ${redisUrl}`);

/**
 * Token changes travel the production path here: grants in Redis, the `tokens.changed` notice and
 * the `tokens.seen` reports over NATS, as between separate processes.
 */
describe.skipIf(!available)("API token revocation over NATS and Redis", () => {
  const namespace = `test_${randomUUID().slice(0, 8)}`;
  let vexil: TestSystem;

  beforeAll(async () => {
    vexil = await startTestSystem({
      platform: {
        NATS_URL: natsUrl,
        REDIS_URL: redisUrl,
        NATS_STREAM: namespace,
        NATS_NAMESPACE: namespace,
        REDIS_KEY_PREFIX: `${namespace}:`,
      },
    });
  });
  afterAll(async () => {
    await vexil?.stop();
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(namespace).catch(() => undefined);
    await nc.close();
    // The test's own Redis keys (token grants, snapshots) go too.
    const keys = execFileSync("redis-cli", ["-u", redisUrl, "--scan", "--pattern", `${namespace}:*`], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    if (keys.length > 0) execFileSync("redis-cli", ["-u", redisUrl, "del", ...keys]);
  });

  it("admits a new token on every surface, records its use, and refuses it within a second of revocation", async () => {
    const create = async (type: string) => {
      const res = await vexil.api("/api/admin/api-tokens", {
        method: "POST",
        body: { tokenName: `wire-${type}`, type, environment: "development" },
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    };
    const frontend = await create("frontend");
    const client = await create("client");
    const surfaces = async () => [
      (await vexil.api("/api/frontend", { token: frontend })).status,
      (await vexil.api("/api/client/features", { token: client })).status,
    ];
    const admitted = (statuses: number[]) => statuses.every((s) => s !== 401 && s !== 403);
    const until = async (check: (s: number[]) => boolean, ms: number) => {
      const started = Date.now();
      let last = await surfaces();
      while (!check(last) && Date.now() - started < ms) last = await surfaces();
      return { last, elapsed: Date.now() - started };
    };

    expect(admitted((await until(admitted, 1000)).last)).toBe(true);

    let seen: Array<string | null> = [null];
    for (let i = 0; i < 40 && seen.some((s) => !s); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const { tokens } = (await (await vexil.api("/api/admin/api-tokens")).json()) as {
        tokens: { tokenName: string; seenAt: string | null }[];
      };
      seen = tokens.filter((t) => t.tokenName.startsWith("wire-")).map((t) => t.seenAt);
    }
    expect(seen.every(Boolean)).toBe(true);

    for (const secret of [frontend, client]) {
      expect((await vexil.api(`/api/admin/api-tokens/${encodeURIComponent(secret)}`, { method: "DELETE" })).status).toBe(200);
    }
    const revoked = await until((s) => s.every((status) => status === 401), 1000);
    expect(revoked.last).toEqual([401, 401]);
    expect(revoked.elapsed).toBeLessThan(1000);
  });
});
