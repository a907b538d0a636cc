import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/** Password guessing on POST /auth/simple/login: a per-address budget per window, as in Unleash. */
const limit = 3;
const windowMs = 3_000;
const password = "Str0ng-enough!";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem({ admin: { SIMPLE_LOGIN_LIMIT_PER_MINUTE: limit, SIMPLE_LOGIN_LIMIT_WINDOW_MS: windowMs } });
});
afterAll(() => vexil.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Windows are aligned to the clock; the system runs in this process, so it shares the clock. */
const untilNextWindow = () => sleep(windowMs - (Date.now() % windowMs) + 50);
const login = (username: string, pass: string) =>
  vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username, password: pass } });

describe("sign-in rate limit", () => {
  it("refuses the attempt past the limit with 429 and Retry-After, even with the right password, until the window ends", async () => {
    const user = await (
      await vexil.api("/api/admin/user-admin", { method: "POST", body: { username: "guessed", rootRole: "Viewer", password } })
    ).json();
    const loginAttempts = async () => (await (await vexil.api(`/api/admin/user-admin/${user.id}`)).json()).loginAttempts;

    await untilNextWindow();
    for (let i = 0; i < limit; i++) expect((await login("guessed", `wrong-${i}`)).status).toBe(401);
    expect(await loginAttempts()).toBe(limit);

    const refused = await login("guessed", "wrong-again");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ id: expect.any(String), name: "TooManyRequests", message: expect.any(String) });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);

    // No bypass: the right password is refused too, and refused attempts never reach the password check.
    const rightButLimited = await login("guessed", password);
    expect(rightButLimited.status).toBe(429);
    expect(rightButLimited.headers.get("set-cookie")).toBeNull();
    expect(await loginAttempts()).toBe(limit);

    await untilNextWindow();
    const accepted = await login("guessed", password);
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("set-cookie")).toMatch(/^vexil-session=/);
    expect(await loginAttempts()).toBe(0);
  });

  it("counts malformed attempts too", async () => {
    await untilNextWindow();
    for (let i = 0; i < limit; i++) {
      const res = await vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username: "guessed" } });
      expect(res.status).toBe(400);
    }
    expect((await login("guessed", password)).status).toBe(429);
  });
});
