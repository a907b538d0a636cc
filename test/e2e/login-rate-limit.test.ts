import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Password guessing on POST /auth/simple/login: a per-address budget per sliding window.
 *
 * Nothing here depends on how fast the machine is or when it runs: windows are aligned to the
 * epoch, and a thousand-year window puts every attempt until the year 2970 in the first one, so no
 * window can end between two attempts. Each test signs in from an address of its own
 * (X-Forwarded-For, trusted from loopback as from a proxy: TRUST_PROXY), so no test spends another's budget.
 * The next window's fresh budget is the limiter's unit test, on an injected clock.
 */
const limit = 3;
const windowMs = 1000 * 365.25 * 24 * 60 * 60 * 1000;
const password = "Str0ng-enough!";

let vexil: TestSystem;
let userId: number;
beforeAll(async () => {
  vexil = await startTestSystem({
    env: { SIMPLE_LOGIN_LIMIT_PER_MINUTE: String(limit), SIMPLE_LOGIN_LIMIT_WINDOW_MS: String(windowMs), TRUST_PROXY: "loopback" },
  });
  userId = (
    await vexil.expectStatus("/api/admin/user-admin", { method: "POST", body: { username: "guessed", rootRole: "Viewer", password } }, 201)
  ).id;
});
afterAll(() => vexil?.stop());

let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;
const login = (from: string, body: object) =>
  vexil.api("/auth/simple/login", { method: "POST", token: null, headers: { "x-forwarded-for": from }, body });
const loginAttempts = async () => (await vexil.expectStatus(`/api/admin/user-admin/${userId}`, undefined, 200)).loginAttempts;

describe("sign-in rate limit", () => {
  it("refuses the attempt past the limit with 429 and Retry-After, even with the right password", async () => {
    const address = newAddress();
    for (let i = 0; i < limit; i++) expect((await login(address, { username: "guessed", password: `wrong-${i}` })).status).toBe(401);
    expect(await loginAttempts()).toBe(limit);

    const refused = await login(address, { username: "guessed", password: "wrong-again" });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ id: expect.any(String), name: "TooManyRequests", message: expect.any(String) });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // The window slides: this window's attempts weigh in the next one until they fade.
    expect(retryAfter).toBeLessThanOrEqual((2 * windowMs) / 1000);

    // No bypass: the right password is refused too, and refused attempts never reach the password check.
    const rightButLimited = await login(address, { username: "guessed", password });
    expect(rightButLimited.status).toBe(429);
    expect(rightButLimited.headers.get("set-cookie")).toBeNull();
    expect(await loginAttempts()).toBe(limit);

    // The budget is the address's, not the account's: from elsewhere the right password signs in.
    const accepted = await login(newAddress(), { username: "guessed", password });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("set-cookie")).toMatch(/^vexil-session=/);
    expect(await loginAttempts()).toBe(0);
  });

  it("counts malformed attempts too", async () => {
    const address = newAddress();
    for (let i = 0; i < limit; i++) expect((await login(address, { username: "guessed" })).status).toBe(400);
    expect((await login(address, { username: "guessed", password })).status).toBe(429);
  });
});
