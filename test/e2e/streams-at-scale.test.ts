import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { openSdkStreams, type SdkStream } from "../src/sdk-streams.js";

/**
 * Hundreds of SDK streams opened at once, in single mode and through the cluster gateway: polls
 * keep being answered while they open, every stream gets every change, and none is dropped.
 * `npm run bench:streams` does the same with ten thousand and reports the figures.
 */
const streamCount = 500;

describe.each([
  ["single", true],
  ["cluster", await clusterAvailable("SDK streams through the cluster gateway")],
] as const)(`%s mode: ${streamCount} streams at once`, (mode, available) => {
  let vexil: TestSystem;
  let streams: SdkStream[] = [];
  beforeAll(async () => {
    if (!available) return;
    // Admitted 100 a second, so the burst queues for seconds and the polls meet it.
    vexil = await startTestSystem({ mode, env: { SDK_STREAMS_ADMIT_PER_SECOND: "100" } });
    for (let i = 0; i < 20; i++) {
      await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: `seeded-${i}` } }, 201);
    }
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await vexil?.stop();
  });

  it.skipIf(!available)(
    "opens them all while polls are answered, and every one gets a change",
    async () => {
      const pollStatuses: number[] = [];
      let slowestPoll = 0;
      let opening = true;
      const polling = (async () => {
        while (opening) {
          const polled = performance.now();
          const res = await vexil.api("/api/client/features", { token: vexil.tokens.client, signal: AbortSignal.timeout(30_000) });
          await res.arrayBuffer();
          pollStatuses.push(res.status);
          slowestPoll = Math.max(slowestPoll, performance.now() - polled);
        }
      })();
      const started = performance.now();
      const opened = await openSdkStreams(vexil.url, vexil.tokens.client, streamCount, 250);
      const openMs = performance.now() - started;
      opening = false;
      await polling;
      streams = opened.streams;
      console.info(
        `${mode}: ${streamCount} streams open in ${openMs.toFixed(0)} ms, ${pollStatuses.length} polls answered meanwhile, the slowest in ${slowestPoll.toFixed(0)} ms`,
      );
      expect(opened.failures).toEqual([]);
      // 500 admitted at 100 a second take about 5 s; polls went on being answered throughout.
      expect(pollStatuses.length).toBeGreaterThan(1);
      expect(new Set(pollStatuses)).toEqual(new Set([200]));

      const marker = `"name":"after-streams"`;
      for (const stream of streams) stream.watch(marker);
      const changed = performance.now();
      await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: "after-streams" } }, 201);
      await expect.poll(() => streams.filter((stream) => stream.seen(marker) === undefined).length, { timeout: 30_000 }).toBe(0);
      const slowest = Math.max(...streams.map((stream) => stream.seen(marker)! - changed));
      console.info(`${mode}: the change reached all ${streamCount} streams within ${slowest.toFixed(0)} ms`);
      expect(streams.filter((stream) => stream.droppedAt !== undefined)).toEqual([]);

      // And the process still answers a poll with the change in it.
      const features = await vexil.expectStatus("/api/client/features", { token: vexil.tokens.client }, 200);
      expect(features.features.map((f: { name: string }) => f.name)).toContain("after-streams");
    },
    180_000,
  );
});
