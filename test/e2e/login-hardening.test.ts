import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Password sign-in under attack, through a real process: an unknown name costs the same password
 * check as a wrong password, password hashing waits its turn instead of starving the journal,
 * the per-address limit slides across window boundaries, and an account backs off after failures.
 *
 * Timings are reported and compared with wide margins, never held to a figure: the machine may be loaded.
 */
const password = "Str0ng-enough!";
const login = (vexil: TestSystem, body: object, from?: string) =>
  vexil.api("/auth/simple/login", { method: "POST", token: null, headers: from ? { "x-forwarded-for": from } : {}, body });
const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("password checks", () => {
  let vexil: TestSystem;
  beforeAll(async () => {
    vexil = await startTestSystem();
    await vexil.expectStatus("/api/admin/user-admin", { method: "POST", body: { username: "known", rootRole: "Viewer", password } }, 201);
  });
  afterAll(() => vexil?.stop());

  it("take as long for a name no user has as for a wrong password", async () => {
    const unknown: number[] = [];
    const wrong: number[] = [];
    // Interleaved, so a change in the machine's load falls on both alike.
    for (let i = 0; i < 5; i++) {
      const [a, unknownMs] = await timed(() => login(vexil, { username: `nobody-${i}`, password: "wrong-password" }));
      const [b, wrongMs] = await timed(() => login(vexil, { username: "known", password: `wrong-${i}` }));
      expect([a.status, b.status]).toEqual([401, 401]);
      expect(await a.json()).toEqual(await b.json().then((body: { id: string }) => ({ ...body, id: expect.any(String) })));
      unknown.push(unknownMs);
      wrong.push(wrongMs);
    }
    const [unknownMs, wrongMs] = [median(unknown), median(wrong)];
    console.info(`sign-in medians: unknown name ${unknownMs.toFixed(0)} ms, wrong password ${wrongMs.toFixed(0)} ms`, { unknown, wrong });
    // Before the dummy check the unknown name took about 1% of the wrong password's time.
    expect(unknownMs).toBeGreaterThan(wrongMs * 0.5);
    expect(wrongMs).toBeGreaterThan(unknownMs * 0.5);
  });

  it("forty failed sign-ins at once do not hold up an admin write", async () => {
    const [, quietMs] = await timed(() =>
      vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: "quiet-write" } }, 201),
    );
    const attempts = Array.from({ length: 40 }, (_, i) => timed(() => login(vexil, { username: `guess-${i}`, password: "wrong" })));
    await sleep(200); // the attempts are in; their password checks queue
    const [, busyMs] = await timed(() =>
      vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: "busy-write" } }, 201),
    );
    const results = await Promise.all(attempts);
    const statuses = results.map(([res]) => res.status);
    const slowest = Math.max(...results.map(([, ms]) => ms));
    console.info(
      `admin write: ${quietMs.toFixed(0)} ms alone, ${busyMs.toFixed(0)} ms during 40 failed sign-ins (the last of which answered after ${slowest.toFixed(0)} ms)`,
    );
    expect(statuses).toEqual(Array(40).fill(401));
    // Unbounded, the forty scrypt runs filled libuv's thread pool and this write took 10 s.
    expect(busyMs).toBeLessThan(3_000);
  }, 600_000); // the forty checks run one after another: seconds each on a loaded machine
});

describe("sign-in limits", () => {
  const limit = 4;
  const windowMs = 10_000;
  const backoffMs = 2_000;
  let vexil: TestSystem;
  let addresses = 0;
  const newAddress = () => `198.51.100.${++addresses}`;
  beforeAll(async () => {
    vexil = await startTestSystem({
      env: {
        SIMPLE_LOGIN_LIMIT_PER_MINUTE: String(limit),
        SIMPLE_LOGIN_LIMIT_WINDOW_MS: String(windowMs),
        LOGIN_BACKOFF_AFTER_FAILURES: "2",
        LOGIN_BACKOFF_BASE_MS: String(backoffMs),
        TRUST_PROXY: "loopback",
      },
    });
    await vexil.expectStatus("/api/admin/user-admin", { method: "POST", body: { username: "target", rootRole: "Viewer", password } }, 201);
  });
  afterAll(() => vexil?.stop());

  it("an address that spent its budget at the end of a window gets no fresh one at the boundary", async () => {
    const address = newAddress();
    // Windows are aligned to the epoch: wait for the last 1.5 s of one.
    const intoWindow = () => Date.now() % windowMs;
    if (intoWindow() < windowMs - 1_500) await sleep(windowMs - 1_500 - intoWindow());
    // Malformed attempts count as attempts and cost no password check, so they are quick.
    for (let i = 0; i < limit; i++) expect((await login(vexil, { username: "target" }, address)).status).toBe(400);
    await sleep(windowMs - intoWindow() + 200);
    // Fixed windows would open a whole new budget here; the previous burst still weighs about 3.9 of 4.
    const refused = await login(vexil, { username: "target" }, address);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ id: expect.any(String), name: "TooManyRequests", message: expect.any(String) });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    // Halfway into the window the burst weighs 2: with the refused attempt and this one, 4 fit.
    await sleep(Math.max(0, windowMs / 2 + 300 - intoWindow()));
    expect((await login(vexil, { username: "target" }, address)).status).toBe(400);
  });

  it("an account that keeps failing is locked for longer each time, right password or not, then opens again", async () => {
    const attempt = (pass: string) => login(vexil, { username: "target", password: pass }, newAddress());
    for (let i = 0; i < 2; i++) expect((await attempt(`wrong-${i}`)).status).toBe(401);
    // The third failure is past the two free ones: it locks the account for backoffMs.
    expect((await attempt("wrong-2")).status).toBe(401);
    const locked = await attempt(password);
    expect(locked.status).toBe(429);
    expect(await locked.json()).toEqual({ id: expect.any(String), name: "TooManyRequests", message: expect.stringMatching(/account/) });
    expect(locked.headers.get("set-cookie")).toBeNull();
    expect(Number(locked.headers.get("retry-after"))).toBe(backoffMs / 1000);

    await sleep(backoffMs + 100);
    expect((await attempt("wrong-3")).status).toBe(401); // the next failure doubles the lock
    expect(Number((await attempt(password)).headers.get("retry-after"))).toBe((2 * backoffMs) / 1000);

    await sleep(2 * backoffMs + 100);
    const signedIn = await attempt(password);
    expect(signedIn.status).toBe(200);
    // A success forgets the failures: two more are free again.
    for (let i = 0; i < 2; i++) expect((await attempt(`again-${i}`)).status).toBe(401);
    expect((await attempt(password)).status).toBe(200);
  });

  it("a name no user has backs off the same way, so a lock tells nothing about which names exist", async () => {
    const attempt = () => login(vexil, { username: "no-such-user", password: "wrong" }, newAddress());
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const locked = await attempt();
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBe(backoffMs / 1000);
  });
});
