import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessHelpers, errorBody, strongPassword, withCookie } from "../src/access-helpers.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * `POST /api/admin/user/change-password`: any signed-in user, a Viewer included, changes their own
 * password as in Unleash 8.2 (the current password, the new one twice). The session that made the
 * change stays; the user's other sessions end.
 */
let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
}, 90_000);
afterAll(() => vexil?.stop());

const { api, createUser, login } = accessHelpers(() => vexil);
const changed = "Fresh-passw0rd!";
const change = (cookie: string, body: unknown) => api("/api/admin/user/change-password", { ...withCookie(cookie), method: "POST", body });

describe("changing one's own password", () => {
  it("lets a Viewer change their password: this session stays, the others end, only the new password signs in", async () => {
    const viewer = await createUser("vera", "Viewer");
    const here = await login("vera");
    const elsewhere = await login("vera");
    await json(await change(here, { oldPassword: strongPassword, password: changed, confirmPassword: changed }), 200);

    expect((await api("/api/admin/user", withCookie(here))).status).toBe(200);
    expect(await json(await api("/api/admin/user", withCookie(elsewhere)), 401)).toMatchObject(errorBody("AuthenticationRequired"));
    const oldSignIn = await api("/auth/simple/login", {
      method: "POST",
      token: null,
      body: { username: "vera", password: strongPassword },
    });
    expect(await json(oldSignIn, 401)).toMatchObject(errorBody("AuthenticationRequired"));
    await login("vera", changed);

    const events = (await json(await api("/api/admin/search/events?type=user-updated&limit=100"), 200)).events as {
      data: { id?: number; passwordChanged?: boolean } | null;
      createdBy: string;
    }[];
    expect(events).toContainEqual(expect.objectContaining({ createdBy: "vera", data: { id: viewer.id, passwordChanged: true } }));
  });

  it.each([
    ["no current password", { password: changed, confirmPassword: changed }, 400, "ValidationError", "body.oldPassword"],
    [
      "a weak password",
      { oldPassword: strongPassword, password: "weak", confirmPassword: "weak" },
      400,
      "ValidationError",
      "body.password",
    ],
    [
      "a confirmation that differs",
      { oldPassword: strongPassword, password: changed, confirmPassword: `${changed}x` },
      400,
      "ValidationError",
      "body.confirmPassword",
    ],
    [
      "the password in use",
      { oldPassword: strongPassword, password: strongPassword, confirmPassword: strongPassword },
      400,
      "ValidationError",
      "body.password",
    ],
    [
      "a wrong current password",
      { oldPassword: "Wrong-passw0rd!", password: changed, confirmPassword: changed },
      401,
      "PasswordMismatch",
      undefined,
    ],
  ])("refuses %s, keeping the password", async (_case, body, status, name, path) => {
    const username = `refused-${Math.random().toString(36).slice(2, 8)}`;
    await createUser(username, "Editor");
    const session = await login(username);
    const refused = await json(await change(session, body), status);
    expect(refused).toMatchObject(errorBody(name));
    if (path) expect(refused.details.map((d: { path: string }) => d.path)).toContain(path);
    // Refused: the session lives on and the password is the same.
    expect((await api("/api/admin/user", withCookie(session))).status).toBe(200);
    await login(username);
  });

  it("refuses callers without a password of their own", async () => {
    const body = { oldPassword: strongPassword, password: changed, confirmPassword: changed };
    const withToken = await api("/api/admin/user/change-password", { method: "POST", body });
    expect(await json(withToken, 403)).toMatchObject(errorBody("NoAccessError"));
    const anonymous = await api("/api/admin/user/change-password", { method: "POST", token: null, body });
    expect(await json(anonymous, 401)).toMatchObject(errorBody("AuthenticationRequired"));
  });
});
