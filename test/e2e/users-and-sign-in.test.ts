import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessHelpers, iso, errorBody, future, strongPassword, admitted, withCookie } from "../src/access-helpers.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * People end to end through the gateway: users, password sign-in and sessions, personal access
 * tokens, invite links, SAML settings, feedback, and the event log their changes fill.
 */
let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
});
afterAll(() => vexil?.stop());

const { api, createUser, login } = accessHelpers(() => vexil);

describe("users, sign-in and personal access tokens", () => {
  it("lists users with the root roles; the initial admin exists", async () => {
    const body = await json(await api("/api/admin/user-admin"), 200);
    expect(body.rootRoles.map((r: { id: number; name: string }) => [r.id, r.name])).toEqual([
      [1, "Admin"],
      [2, "Editor"],
      [3, "Viewer"],
    ]);
    expect(body.users[0]).toEqual({
      id: 1,
      name: null,
      username: "admin",
      imageUrl: expect.stringMatching(/^https:\/\//),
      rootRole: 1,
      loginAttempts: 0,
      seenAt: null,
      createdAt: iso,
      accountType: "User",
      isAPI: false,
    });
  });

  it("creates, reads, updates and deletes a user", async () => {
    const created = await json(
      await api("/api/admin/user-admin", {
        method: "POST",
        body: { name: "Ada", email: "Ada@Example.com", username: "ada", rootRole: "Editor", password: strongPassword },
      }),
      201,
    );
    expect(created).toMatchObject({ id: expect.any(Number), name: "Ada", email: "ada@example.com", username: "ada", rootRole: 2 });
    expect(created).not.toHaveProperty("passwordHash");
    expect(await json(await api(`/api/admin/user-admin/${created.id}`), 200)).toEqual(created);
    const updated = await json(
      await api(`/api/admin/user-admin/${created.id}`, { method: "PUT", body: { rootRole: 3, name: "Ada L" } }),
      200,
    );
    expect(updated).toMatchObject({ id: created.id, name: "Ada L", rootRole: 3, email: "ada@example.com" });
    await json(await api(`/api/admin/user-admin/${created.id}`, { method: "DELETE" }), 200);
    expect(await json(await api(`/api/admin/user-admin/${created.id}`), 404)).toMatchObject(errorBody("NotFoundError"));
    const types = (await json(await api("/api/admin/search/events?limit=1000"), 200)).events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(["user-created", "user-updated", "user-deleted"]));
  });

  it.each([
    ["a weak password", { username: "weak", password: "short" }, 400, "ValidationError"],
    ["no username or email", { name: "x", password: strongPassword }, 400, "ValidationError"],
    ["an unknown role id", { username: "r", rootRole: 9, password: strongPassword }, 400, "ValidationError"],
    ["a taken username", { username: "admin", password: strongPassword }, 409, "NameExistsError"],
  ])("refuses %s", async (_case, body, status, name) => {
    expect(await json(await api("/api/admin/user-admin", { method: "POST", body }), status)).toMatchObject(errorBody(name));
  });

  it("answers 400 for a non-numeric id and 404 for an unknown one", async () => {
    expect(await json(await api("/api/admin/user-admin/abc"), 400)).toMatchObject(errorBody("ValidationError"));
    expect(await json(await api("/api/admin/user-admin/9999", { method: "PUT", body: { name: "x" } }), 404)).toMatchObject(
      errorBody("NotFoundError"),
    );
  });

  it("signs in with a password and sets an HttpOnly, SameSite=Lax session cookie", async () => {
    await createUser("grace", "Viewer");
    const res = await api("/auth/simple/login", { method: "POST", token: null, body: { username: "grace", password: strongPassword } });
    const user = await json(res, 200);
    expect(user).toMatchObject({ username: "grace", rootRole: 3, seenAt: iso });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^vexil-session=[\w-]{40,};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");

    const session = cookie.split(";")[0];
    const me = await json(await api("/api/admin/user", withCookie(session)), 200);
    expect(me.user).toMatchObject({ username: "grace", rootRole: 3 });
    expect(me.permissions).toEqual([{ permission: "READ" }]);

    const out = await api("/logout", { ...withCookie(session), redirect: "manual" });
    expect(out.status).toBe(302);
    expect(out.headers.get("set-cookie")).toMatch(/vexil-session=;/);
    expect((await api("/api/admin/user", withCookie(session))).status).toBe(401);
  });

  it.each([
    ["a wrong password", { username: "admin", password: "Wrong-passw0rd" }, 401, "AuthenticationRequired"],
    ["an unknown user", { username: "nobody", password: strongPassword }, 401, "AuthenticationRequired"],
    ["a missing password", { username: "admin" }, 400, "ValidationError"],
  ])("refuses sign-in with %s", async (_case, body, status, name) => {
    const res = await api("/auth/simple/login", { method: "POST", token: null, body });
    expect(await json(res, status)).toMatchObject(errorBody(name));
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("changes a password: the old one stops working and sessions end", async () => {
    const user = await createUser("linus", "Editor");
    const session = await login("linus");
    await json(await api(`/api/admin/user-admin/${user.id}/change-password`, { method: "POST", body: { password: "N3w-password!" } }), 200);
    expect((await api("/api/admin/user", withCookie(session))).status).toBe(401);
    expect(
      (await api("/auth/simple/login", { method: "POST", token: null, body: { username: "linus", password: strongPassword } })).status,
    ).toBe(401);
    await login("linus", "N3w-password!");
    expect(
      await json(await api("/api/admin/user-admin/1/change-password", { method: "POST", body: { password: "weak" } }), 400),
    ).toMatchObject(errorBody("ValidationError"));
  });

  it("deletes a user: their sessions and personal access tokens stop working at once", async () => {
    const user = await createUser("leaver", "Editor");
    const session = await login("leaver");
    const pat = await json(
      await api("/api/admin/user/tokens", { ...withCookie(session), method: "POST", body: { description: "laptop", expiresAt: future } }),
      201,
    );
    expect((await api("/api/admin/strategies", { token: pat.secret })).status).toBe(200);

    await json(await api(`/api/admin/user-admin/${user.id}`, { method: "DELETE" }), 200);
    expect((await api("/api/admin/user", withCookie(session))).status).toBe(401);
    expect((await api("/api/admin/strategies", { token: pat.secret })).status).toBe(401);
    expect(
      (await api("/auth/simple/login", { method: "POST", token: null, body: { username: "leaver", password: strongPassword } })).status,
    ).toBe(401);
  });

  it("issues personal access tokens that show their secret once and act with the user's role", async () => {
    await createUser("viewer-pat", "Viewer");
    const session = await login("viewer-pat");
    const created = await json(
      await api("/api/admin/user/tokens", { ...withCookie(session), method: "POST", body: { description: "ci", expiresAt: future } }),
      201,
    );
    expect(created).toEqual({
      id: expect.any(Number),
      secret: expect.stringMatching(/^user:[0-9a-f]{56}$/),
      description: "ci",
      expiresAt: future,
      createdAt: iso,
      seenAt: null,
      userId: expect.any(Number),
    });
    const { pats } = await json(await api("/api/admin/user/tokens", withCookie(session)), 200);
    expect(pats).toEqual([{ ...created, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    expect(JSON.stringify(pats)).not.toContain(created.secret);

    expect((await api("/api/admin/strategies", { token: created.secret })).status).toBe(200);
    const refused = await json(await api("/api/admin/api-tokens", { token: created.secret }), 403);
    expect(refused.message).toContain("READ_API_TOKEN");
    expect(admitted((await api("/api/frontend", { token: created.secret })).status)).toBe(false);

    await json(await api(`/api/admin/user/tokens/${created.id}`, { ...withCookie(session), method: "DELETE" }), 200);
    expect((await api("/api/admin/strategies", { token: created.secret })).status).toBe(401);
    expect((await api(`/api/admin/user/tokens/${created.id}`, { ...withCookie(session), method: "DELETE" })).status).toBe(404);
  });

  it("refuses bad personal access token requests", async () => {
    const session = await login("viewer-pat");
    const past = await api("/api/admin/user/tokens", {
      ...withCookie(session),
      method: "POST",
      body: { description: "x", expiresAt: "2001-01-01T00:00:00.000Z" },
    });
    expect(await json(past, 400)).toMatchObject(errorBody("ValidationError"));
    expect((await api("/api/admin/user/tokens", { method: "POST", body: { description: "x", expiresAt: future } })).status).toBe(403);
    expect((await api("/api/admin/user/tokens", { token: null })).status).toBe(401);
  });
});

describe("public signup tokens", () => {
  let secret: string;

  it("creates an invite link for Viewers by default", async () => {
    const res = await api("/api/admin/invite-link/tokens", { method: "POST", body: { name: "team", expiresAt: future } });
    const token = await json(res, 201);
    expect(token).toEqual({
      secret: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: expect.stringMatching(/\/new-user\?invite=[0-9a-f]{32}$/),
      name: "team",
      enabled: true,
      expiresAt: future,
      createdAt: iso,
      createdBy: "init-admin-token",
      users: [],
      role: { id: 3, type: "root", name: "Viewer", description: expect.any(String) },
    });
    expect(res.headers.get("location")).toContain(token.secret);
    secret = token.secret;
    expect((await json(await api("/api/admin/invite-link/tokens"), 200)).tokens).toContainEqual(token);
    expect(await json(await api(`/api/admin/invite-link/tokens/${secret}`), 200)).toEqual(token);
  });

  it("signs people up with the token's role and lists them on it", async () => {
    expect((await api(`/invite/${secret}/validate`, { token: null })).status).toBe(200);
    const user = await json(
      await api(`/invite/${secret}/signup`, {
        method: "POST",
        token: null,
        body: { name: "New", email: "new@example.com", password: strongPassword },
      }),
      201,
    );
    expect(user).toMatchObject({ email: "new@example.com", rootRole: 3 });
    const token = await json(await api(`/api/admin/invite-link/tokens/${secret}`), 200);
    expect(token.users).toEqual([expect.objectContaining({ id: user.id, email: "new@example.com" })]);
    await login("new@example.com");
    const again = await api(`/invite/${secret}/signup`, {
      method: "POST",
      token: null,
      body: { email: "new@example.com", password: strongPassword },
    });
    expect(await json(again, 409)).toMatchObject(errorBody("NameExistsError"));
    const weak = await api(`/invite/${secret}/signup`, { method: "POST", token: null, body: { email: "w@example.com", password: "weak" } });
    expect(await json(weak, 400)).toMatchObject(errorBody("ValidationError"));
  });

  it("updates either field with PUT /api/admin/invite-link/tokens/:token; enabled reads false once expired; signup then refused", async () => {
    const disabled = await json(await api(`/api/admin/invite-link/tokens/${secret}`, { method: "PUT", body: { enabled: false } }), 200);
    expect(disabled).toMatchObject({ enabled: false, expiresAt: future });
    const refused = await api(`/invite/${secret}/signup`, {
      method: "POST",
      token: null,
      body: { email: "late@example.com", password: strongPassword },
    });
    expect(await json(refused, 400)).toMatchObject(errorBody("ValidationError"));
    expect((await api(`/invite/${secret}/validate`, { token: null })).status).toBe(400);

    const expired = await json(
      await api(`/api/admin/invite-link/tokens/${secret}`, {
        method: "PUT",
        body: { enabled: true, expiresAt: "2001-01-01T00:00:00.000Z" },
      }),
      200,
    );
    expect(expired).toMatchObject({ enabled: false, expiresAt: "2001-01-01T00:00:00.000Z" });
    expect(
      (
        await api(`/invite/${secret}/signup`, {
          method: "POST",
          token: null,
          body: { email: "late@example.com", password: strongPassword },
        })
      ).status,
    ).toBe(400);
    const revived = await json(await api(`/api/admin/invite-link/tokens/${secret}`, { method: "PUT", body: { expiresAt: future } }), 200);
    expect(revived.enabled).toBe(true);
    expect(await json(await api(`/api/admin/invite-link/tokens/${secret}`, { method: "PUT", body: {} }), 200)).toEqual(revived);
  });

  it("answers 400/401/403/404/415 as the spec lists", async () => {
    const path = `/api/admin/invite-link/tokens/${secret}`;
    expect(await json(await api(path, { method: "PUT", body: { enabled: "yes" } }), 400)).toMatchObject(errorBody("ValidationError"));
    expect(await json(await api(path, { method: "PUT", body: { expiresAt: "soon" } }), 400)).toMatchObject(errorBody("ValidationError"));
    expect((await api(path, { method: "PUT", body: { enabled: true }, token: null })).status).toBe(401);
    expect((await api(path, { method: "PUT", body: { enabled: true }, token: vexil.tokens.client })).status).toBe(403);
    expect((await api("/api/admin/invite-link/tokens/nope", { method: "PUT", body: { enabled: true } })).status).toBe(404);
    expect((await api(path, { method: "PUT", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect(
      (await api("/api/admin/invite-link/tokens", { method: "POST", body: { name: "x", expiresAt: "2001-01-01T00:00:00.000Z" } })).status,
    ).toBe(400);
    expect(
      (await api("/api/admin/invite-link/tokens", { method: "POST", body: { name: "x", expiresAt: future, roleId: 42 } })).status,
    ).toBe(400);
    const editor = await login((await createUser("invite-editor", "Editor")).username);
    expect((await api("/api/admin/invite-link/tokens", withCookie(editor))).status).toBe(403);
  });

  it("records created, updated and user-added events without the secret", async () => {
    const { events } = await json(await api("/api/admin/search/events?limit=1000"), 200);
    const types = events.map((e: { type: string }) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(["public-signup-token-created", "public-signup-token-updated", "public-signup-token-user-added"]),
    );
    expect(JSON.stringify(events)).not.toContain(secret);
  });
});

describe("SAML settings: GET and POST /api/admin/auth/saml/settings", () => {
  const valid = { enabled: true, entityId: "https://idp.example.com", signOnUrl: "https://idp.example.com/sso", certificate: "MIIC..." };

  it("reads disabled settings before any are saved", async () => {
    expect(await json(await api("/api/admin/auth/saml/settings"), 200)).toEqual({ enabled: false });
  });

  it("requires entityId, signOnUrl and certificate when enabled, naming each", async () => {
    const error = await json(await api("/api/admin/auth/saml/settings", { method: "POST", body: { enabled: true } }), 400);
    expect(error.details.map((d: { path: string }) => d.path)).toEqual(["body.entityId", "body.signOnUrl", "body.certificate"]);
    expect(await json(await api("/api/admin/auth/saml/settings", { method: "POST", body: { enabled: false } }), 200)).toEqual({
      enabled: false,
    });
  });

  it("lets defaultRootRoleId win over defaultRootRole and reads the settings back", async () => {
    const body = {
      ...valid,
      autoCreate: true,
      emailDomains: "example.com",
      defaultRootRole: "Viewer",
      defaultRootRoleId: 2,
      signOutUrl: "https://idp/out",
    };
    const saved = await json(await api("/api/admin/auth/saml/settings", { method: "POST", body }), 200);
    expect(saved).toEqual({ ...body, defaultRootRole: "Editor" });
    expect(await json(await api("/api/admin/auth/saml/settings"), 200)).toEqual(saved);
  });

  it("answers 400/401/403/415 as the spec lists", async () => {
    const path = "/api/admin/auth/saml/settings";
    expect((await api(path, { method: "POST", body: { ...valid, defaultRootRoleId: 9 } })).status).toBe(400);
    expect((await api(path, { method: "POST", body: { ...valid, defaultRootRole: "Owner" } })).status).toBe(400);
    expect((await api(path, { method: "POST", body: valid, token: null })).status).toBe(401);
    const editor = await login((await createUser("saml-editor", "Editor")).username);
    const forbidden = await json(await api(path, withCookie(editor, { method: "POST", body: valid })), 403);
    expect(forbidden.message).toContain("ADMIN");
    expect((await api(path, { method: "POST", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
  });
});

describe("feedback: POST /feedback", () => {
  it("stores feedback from a signed-in caller and answers every field", async () => {
    const body = { category: "general", userType: "developer", difficultyScore: 3, positive: "fast", areasForImprovement: null };
    const saved = await json(await api("/feedback", { method: "POST", body }), 200);
    expect(saved).toEqual({ id: expect.any(Number), createdAt: iso, ...body });
    const minimal = await json(await api("/feedback", { method: "POST", body: { category: "ux" } }), 200);
    expect(minimal).toEqual({
      id: saved.id + 1,
      createdAt: iso,
      category: "ux",
      userType: null,
      difficultyScore: null,
      positive: null,
      areasForImprovement: null,
    });
  });

  it("needs a signed-in caller and a valid body", async () => {
    expect((await api("/feedback", { method: "POST", body: { category: "x" }, token: null })).status).toBe(401);
    expect((await api("/feedback", { method: "POST", body: {} })).status).toBe(400);
    expect((await api("/feedback", { method: "POST", body: { category: "x", difficultyScore: "hard" } })).status).toBe(400);
    expect((await api("/feedback", { method: "POST", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    const viewer = await login((await createUser("feedback-viewer", "Viewer")).username);
    expect((await api("/feedback", withCookie(viewer, { method: "POST", body: { category: "x" } }))).status).toBe(200);
  });
});

describe("event log", () => {
  it("lists events newest first with Unleash's fields and integer ids", async () => {
    const body = await json(await api("/api/admin/events"), 200);
    expect(body.version).toBe(1);
    expect(body.totalEvents).toBeGreaterThan(5);
    const ids = body.events.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(Object.keys(body.events[0]).sort()).toEqual(
      [
        "id",
        "type",
        "createdAt",
        "createdBy",
        "createdByUserId",
        "environment",
        "project",
        "featureName",
        "data",
        "preData",
        "tags",
      ].sort(),
    );
    expect(Number.isInteger(body.events[0].id)).toBe(true);
  });

  it("pages with offset and limit", async () => {
    const all = await json(await api("/api/admin/events?limit=3"), 200);
    const second = await json(await api("/api/admin/events?limit=1&offset=1"), 200);
    expect(second.events).toEqual([all.events[1]]);
    expect(second.totalEvents).toBe(all.totalEvents);
    expect((await api("/api/admin/events?limit=0")).status).toBe(400);
    expect((await api("/api/admin/events?offset=-1")).status).toBe(400);
  });

  it("filters by project and feature", async () => {
    await json(await api("/api/admin/projects/default/features", { method: "POST", body: { name: "event-log-flag" } }), 201);
    const byProject = await json(await api("/api/admin/events?project=default"), 200);
    expect(byProject.events.map((e: { type: string; featureName: string }) => [e.type, e.featureName])).toContainEqual([
      "feature-created",
      "event-log-flag",
    ]);
    expect(byProject.events.every((e: { project: string }) => e.project === "default")).toBe(true);
    const byFeature = await json(await api("/api/admin/events/event-log-flag"), 200);
    expect(byFeature).toMatchObject({ toggleName: "event-log-flag", totalEvents: byFeature.events.length });
    expect(byFeature.events.map((e: { type: string }) => e.type)).toContain("feature-created");
    expect(byFeature.events.every((e: { featureName: string }) => e.featureName === "event-log-flag")).toBe(true);
    expect(await json(await api("/api/admin/events/no-such-flag"), 200)).toEqual({
      version: 1,
      toggleName: "no-such-flag",
      events: [],
      totalEvents: 0,
    });
    expect((await json(await api("/api/admin/events?feature=no-such-flag"), 200)).events).toEqual([]);
  });

  it("searches by type, author and date", async () => {
    const found = await json(await api("/api/admin/search/events?type=user-created&createdBy=init-admin-token"), 200);
    expect(found.total).toBeGreaterThan(0);
    expect(
      found.events.every((e: { type: string; createdBy: string }) => e.type === "user-created" && e.createdBy === "init-admin-token"),
    ).toBe(true);
    expect((await json(await api("/api/admin/search/events?to=2001-01-01"), 200)).total).toBe(0);
    expect((await api("/api/admin/search/events?type=not-a-type")).status).toBe(400);
  });

  it("needs a credential", async () => {
    expect((await api("/api/admin/events", { token: null })).status).toBe(401);
    expect((await api("/api/admin/events", { token: vexil.tokens.client })).status).toBe(403);
  });
});
