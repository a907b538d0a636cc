import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBody, future, iso } from "../src/access-helpers.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Service account tokens (`/api/admin/service-account/:id/token`, Unleash Enterprise's API): a token
 * acts as its service account, with the account's root role, on the admin API, in `default` and in a
 * project created at run time; deleting the token or the account ends it at once.
 */
let vexil: TestSystem;
let project: string;
beforeAll(async () => {
  vexil = await startTestSystem();
  project = await vexil.createProject("robots");
}, 90_000);
afterAll(() => vexil?.stop());

let refusals = 0;
const api = (path: string, init?: Parameters<TestSystem["api"]>[1]) => vexil.api(path, init);

async function createAccount(username: string, rootRole: string): Promise<number> {
  return (await json(await api("/api/admin/service-account", { method: "POST", body: { username, rootRole } }), 201)).id;
}

async function createToken(account: number, description: string) {
  return json(await api(`/api/admin/service-account/${account}/token`, { method: "POST", body: { description, expiresAt: future } }), 201);
}

const createFlag = (token: string, where: string, name: string) =>
  api(`/api/admin/projects/${where}/features`, { method: "POST", token, body: { name } });

describe("service account tokens", () => {
  it("creates a token whose secret is shown once and that acts as an Editor account in default and a run-time project", async () => {
    const account = await createAccount("deployer", "Editor");
    const created = await createToken(account, "deploy pipeline");
    expect(created).toEqual({
      id: expect.any(Number),
      description: "deploy pipeline",
      expiresAt: future,
      createdAt: iso,
      seenAt: null,
      userId: account,
      secret: expect.stringMatching(/^user:[0-9a-f]+$/),
    });

    const whoAmI = await json(await api("/api/admin/user", { token: created.secret }), 200);
    expect(whoAmI.user).toMatchObject({ id: account, username: "deployer", rootRole: 2, accountType: "Service Account" });

    for (const where of ["default", project]) expect((await createFlag(created.secret, where, `deployed-${where}`)).status).toBe(201);
    const flag = await json(await api(`/api/admin/projects/${project}/features/deployed-${project}`), 200);
    expect(flag.name).toBe(`deployed-${project}`);
    const events = (await json(await api(`/api/admin/search/events?project=${project}&limit=100`), 200)).events;
    expect(events).toContainEqual(
      expect.objectContaining({ type: "feature-created", featureName: `deployed-${project}`, createdBy: "deployer" }),
    );

    // Listed without its secret, seen now, and the account with it.
    const { pats } = await json(await api(`/api/admin/service-account/${account}/token`), 200);
    expect(pats).toEqual([
      { id: created.id, description: "deploy pipeline", expiresAt: future, createdAt: iso, seenAt: iso, userId: account },
    ]);
    const { serviceAccounts } = await json(await api("/api/admin/service-account"), 200);
    expect(serviceAccounts.find((a: { id: number }) => a.id === account).seenAt).toEqual(iso);

    const types = (await json(await api("/api/admin/search/events?limit=1000"), 200)).events.map((e: { type: string }) => e.type);
    expect(types).toContain("service-account-token-created");
  });

  it("gives a Viewer account's token reads only", async () => {
    const account = await createAccount("watcher", "Viewer");
    const { secret } = await createToken(account, "dashboard");
    for (const where of ["default", project]) {
      expect((await api(`/api/admin/projects/${where}/features`, { token: secret })).status).toBe(200);
      expect(await json(await createFlag(secret, where, `watched-${where}`), 403)).toMatchObject(errorBody("NoAccessError"));
    }
  });

  it("refuses a deleted token at once, and every token of a deleted account", async () => {
    const account = await createAccount("short-lived", "Editor");
    const first = await createToken(account, "first");
    const second = await createToken(account, "second");
    await json(await api(`/api/admin/service-account/${account}/token/${first.id}`, { method: "DELETE" }), 200);
    expect(await json(await createFlag(first.secret, project, "after-token-deleted"), 401)).toMatchObject(
      errorBody("AuthenticationRequired"),
    );
    expect((await api(`/api/admin/projects/${project}/features`, { token: second.secret })).status).toBe(200);
    expect(await json(await api(`/api/admin/service-account/${account}/token/${first.id}`, { method: "DELETE" }), 404)).toMatchObject(
      errorBody("NotFoundError"),
    );

    await json(await api(`/api/admin/service-account/${account}`, { method: "DELETE" }), 200);
    expect(await json(await api("/api/admin/projects/default/features", { token: second.secret }), 401)).toMatchObject(
      errorBody("AuthenticationRequired"),
    );
    const types = (await json(await api("/api/admin/search/events?limit=1000"), 200)).events.map((e: { type: string }) => e.type);
    expect(types).toContain("service-account-token-deleted");
  });

  it.each([
    ["no description", { expiresAt: future }, "body.description"],
    ["an empty description", { description: " ", expiresAt: future }, "body.description"],
    ["an expiry in the past", { description: "late", expiresAt: "2001-01-01T00:00:00.000Z" }, "body.expiresAt"],
    ["an expiry that is not a date", { description: "odd", expiresAt: "tomorrow" }, "body.expiresAt"],
  ])("refuses a token with %s (400)", async (_case, body, path) => {
    const account = await createAccount(`refused-${refusals++}`, "Editor");
    const refused = await json(await api(`/api/admin/service-account/${account}/token`, { method: "POST", body }), 400);
    expect(refused).toMatchObject(errorBody("ValidationError"));
    expect(refused.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await json(await api(`/api/admin/service-account/${account}/token`), 200)).pats).toEqual([]);
  });

  it("answers 404 for an unknown account or a token of another account, and 403 to non-admins", async () => {
    const body = { description: "x", expiresAt: future };
    for (const res of [
      await api("/api/admin/service-account/999999/token"),
      await api("/api/admin/service-account/999999/token", { method: "POST", body }),
      await api("/api/admin/service-account/999999/token/1", { method: "DELETE" }),
    ]) {
      expect(await json(res, 404)).toMatchObject(errorBody("NotFoundError"));
    }
    const owner = await createAccount("owner", "Editor");
    const other = await createAccount("other", "Editor");
    const token = await createToken(owner, "owned");
    expect(await json(await api(`/api/admin/service-account/${other}/token/${token.id}`, { method: "DELETE" }), 404)).toMatchObject(
      errorBody("NotFoundError"),
    );
    expect((await api("/api/admin/projects/default/features", { token: token.secret })).status).toBe(200);
    expect(await json(await api("/api/admin/service-account/abc/token"), 400)).toMatchObject(errorBody("ValidationError"));

    const editor = await vexil.createPerson({ username: "sa-token-editor", rootRole: "Editor" });
    expect(await json(await api(`/api/admin/service-account/${owner}/token`, { token: editor.token }), 403)).toMatchObject(
      errorBody("NoAccessError"),
    );
    expect(await json(await api(`/api/admin/service-account/${owner}/token`, { token: null }), 401)).toMatchObject(
      errorBody("AuthenticationRequired"),
    );
  });
});
