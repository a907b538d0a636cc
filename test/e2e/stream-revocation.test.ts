/**
 * An open `/api/client/streaming` lives only as long as its token: deleting the token, or its
 * expiry passing, ends the stream at once, and the reconnect is refused with 401. Times are
 * measured and printed; the assertions leave room for a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

let vexil: VexilProcess;
const admin = createTokenSecret({ projects: ["*"], environment: "*" });

beforeAll(async () => {
  vexil = await startVexilProcess({ env: { INIT_ADMIN_API_TOKENS: admin, LOG_LEVEL: "warn" } });
}, 90_000);
afterAll(async () => {
  await vexil?.stop();
});

async function createClientToken(name: string, expiresAt?: string): Promise<string> {
  const res = await fetch(`${vexil.url}/api/admin/api-tokens`, {
    method: "POST",
    headers: { authorization: admin, "content-type": "application/json" },
    body: JSON.stringify({ tokenName: name, type: "client", environment: "development", ...(expiresAt ? { expiresAt } : {}) }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

/** Opens a stream and resolves `ended` with the time the server closed it. */
async function openStream(token: string) {
  const res = await fetch(`${vexil.url}/api/client/streaming`, { headers: { authorization: token } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = "";
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return performance.now();
      text += new TextDecoder().decode(value);
    }
  })();
  return { ended, text: () => text, cancel: () => reader.cancel().catch(() => undefined) };
}

const withinMs = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);

describe("open streams and their tokens", () => {
  it("ends the stream when its token is deleted, and refuses the reconnect", async () => {
    const token = await createClientToken("streamer");
    const stream = await openStream(token);
    await expect.poll(() => stream.text(), { timeout: 60_000 }).toContain("unleash-connected");
    const deletedAt = performance.now();
    const deleted = await fetch(`${vexil.url}/api/admin/api-tokens/${encodeURIComponent(token)}`, {
      method: "DELETE",
      headers: { authorization: admin },
    });
    expect(deleted.status).toBe(200);
    const endedAt = await withinMs(stream.ended, 30_000);
    await stream.cancel();
    expect(endedAt, "the stream was still open 30 s after its token was deleted").toBeDefined();
    console.log(`stream ended ${(endedAt! - deletedAt).toFixed(0)} ms after its token was deleted`);
    const again = await fetch(`${vexil.url}/api/client/streaming`, { headers: { authorization: token } });
    expect(again.status).toBe(401);
    await again.body?.cancel();
  });

  it("ends the stream when its token expires, and refuses the reconnect", async () => {
    // Long enough for the stream to open first, even on a loaded machine.
    const token = await createClientToken("short-lived", new Date(Date.now() + 15_000).toISOString());
    const stream = await openStream(token);
    await expect.poll(() => stream.text(), { timeout: 60_000 }).toContain("unleash-connected");
    const endedAt = await withinMs(stream.ended, 60_000);
    await stream.cancel();
    expect(endedAt, "the stream outlived its token").toBeDefined();
    const again = await fetch(`${vexil.url}/api/client/streaming`, { headers: { authorization: token } });
    expect(again.status).toBe(401);
    await again.body?.cancel();
  });

  it("ends the stream when its token's expiry is moved, as the grant it was opened with changed", async () => {
    const token = await createClientToken("rescoped", new Date(Date.now() + 3_600_000).toISOString());
    const stream = await openStream(token);
    await expect.poll(() => stream.text(), { timeout: 60_000 }).toContain("unleash-connected");
    const changed = await fetch(`${vexil.url}/api/admin/api-tokens/${encodeURIComponent(token)}`, {
      method: "PUT",
      headers: { authorization: admin, "content-type": "application/json" },
      body: JSON.stringify({ expiresAt: new Date(Date.now() + 60_000).toISOString() }),
    });
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect(await withinMs(stream.ended, 30_000), "the stream kept its old grant").toBeDefined();
    await stream.cancel();
  });
});
