/**
 * Calls and expectations the end-to-end files on access share: users created and signed in
 * through the admin API and the sign-in route, and the shapes every answer has.
 */
import { expect } from "vitest";
import { expectJson as json, type ApiInit, type TestSystem } from "./harness.js";

export const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
export const errorBody = (name: string) => ({ id: expect.any(String), name, message: expect.any(String) });
export const future = "2099-01-01T00:00:00.000Z";
export const strongPassword = "Str0ng-enough!";
/** An SDK surface admitted the token: anything but 401/403 (503 until a flag snapshot exists). */
export const admitted = (status: number) => status !== 401 && status !== 403;
/** A request as a signed-in browser makes it: the session cookie, no token. */
export const withCookie = (cookie: string, init: ApiInit = {}): ApiInit => ({ ...init, token: null, headers: { cookie } });

export function accessHelpers(vexil: () => TestSystem) {
  const api = (path: string, init?: ApiInit) => vexil().api(path, init);
  return {
    api,
    async createUser(username: string, rootRole: number | string) {
      return json(await api("/api/admin/user-admin", { method: "POST", body: { username, rootRole, password: strongPassword } }), 201);
    },
    /** Signs in with the password and returns the session cookie. */
    async login(username: string, password = strongPassword) {
      const res = await api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
      await json(res, 200);
      return res.headers.get("set-cookie")!.split(";")[0]!;
    },
  };
}
