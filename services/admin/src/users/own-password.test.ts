import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenDigest } from "@vexil/auth";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { createPersonalAccessTokenStore } from "./personal-access-token-store.js";
import { UserService, type UserSessions } from "./user-service.js";
import { createUserStore } from "./user-store.js";

const password = "Str0ng-enough!";
const changed = "Fresh-passw0rd!";

// scrypt is slow by design and shares libuv's four threads with the other tests of the run.
describe("UserService.changeOwnPassword: people change their own password", { timeout: 120_000 }, () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let users: UserService;
  /** Signed-in sessions: the digest of each session id, and whose it is. */
  let signedIn: Map<string, number>;
  let events: EventStore;

  beforeEach(async () => {
    temp = await tempEngine("user-service");
    engine = temp.engine;
    const clock = () => new Date();
    events = await EventStore.create(engine, clock);
    signedIn = new Map();
    const sessions: UserSessions = {
      deleteForUser: async (userId) => sessions.deleteForUserExcept(userId, ""),
      async deleteForUserExcept(userId, keepDigest) {
        for (const [digest, owner] of signedIn) if (owner === userId && digest !== keepDigest) signedIn.delete(digest);
      },
    };
    users = new UserService({
      users: await createUserStore(engine),
      sessions,
      groups: { removeUserEverywhere: async () => [] },
      personalAccessTokens: await createPersonalAccessTokenStore(engine),
      unitOfWork: new UnitOfWork(engine, events),
      clock,
    });
  });
  afterEach(async () => {
    await temp.remove();
  });

  async function viewerWithTwoSessions() {
    const user = await users.create({ username: "vera", rootRole: "Viewer", password }, { name: "admin", userId: 1 });
    const actor = { name: "vera", userId: user.id };
    const [here, elsewhere] = ["here", "elsewhere"];
    signedIn.set(tokenDigest(here), user.id).set(tokenDigest(elsewhere), user.id);
    return { user, actor, here, elsewhere };
  }

  it("keeps the session that changed the password, ends the others and records the change", async () => {
    const { user, actor, here, elsewhere } = await viewerWithTwoSessions();
    await users.changeOwnPassword(user.id, { oldPassword: password, password: changed }, actor, here);
    expect(signedIn.has(tokenDigest(here))).toBe(true);
    expect(signedIn.has(tokenDigest(elsewhere))).toBe(false);
    await expect(users.verifyLogin("vera", password)).rejects.toMatchObject({ name: "AuthenticationRequired" });
    await expect(users.verifyLogin("vera", changed)).resolves.toMatchObject({ _id: user.id });
    const [latest] = await events.since((await events.latestId()) - 1, 1);
    expect(latest).toMatchObject({ type: "user-updated", createdBy: "vera", data: { id: user.id, passwordChanged: true } });
  });

  it("ends every session when no session made the change (a personal access token)", async () => {
    const { user, actor, here, elsewhere } = await viewerWithTwoSessions();
    await users.changeOwnPassword(user.id, { oldPassword: password, password: changed }, actor, undefined);
    expect(signedIn.has(tokenDigest(here))).toBe(false);
    expect(signedIn.has(tokenDigest(elsewhere))).toBe(false);
  });

  it("refuses a wrong current password (401) and the password in use (400), changing nothing", async () => {
    const { user, actor, elsewhere } = await viewerWithTwoSessions();
    await expect(users.changeOwnPassword(user.id, { oldPassword: changed, password: changed }, actor, undefined)).rejects.toMatchObject({
      name: "PasswordMismatch",
      status: 401,
    });
    await expect(users.changeOwnPassword(user.id, { oldPassword: password, password }, actor, undefined)).rejects.toMatchObject({
      name: "ValidationError",
      status: 400,
    });
    expect(signedIn.has(tokenDigest(elsewhere))).toBe(true);
    await expect(users.verifyLogin("vera", password)).resolves.toMatchObject({ _id: user.id });
  });
});
