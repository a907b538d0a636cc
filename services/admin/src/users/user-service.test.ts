import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { systemActor, type Actor } from "../access/actor.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { createPersonalAccessTokenStore, type PersonalAccessTokenStore } from "./personal-access-token-store.js";
import { UserService } from "./user-service.js";
import { createUserStore } from "./user-store.js";

const admin: Actor = { name: "admin", userId: 99, email: null };

// Passwords are hashed with scrypt, slow by design and sharing libuv's threads with the other tests of the run.
describe("UserService", { timeout: 60_000 }, () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let tokens: PersonalAccessTokenStore;
  let users: UserService;
  /** Users whose sign-ins were ended, in order. */
  let signedOut: number[];
  let now: Date;

  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("users");
    engine = temp.engine;
    now = new Date("2030-01-01T00:00:00.000Z");
    events = await EventStore.create(engine, () => now);
    tokens = await createPersonalAccessTokenStore(engine);
    signedOut = [];
    users = new UserService({
      users: await createUserStore(engine),
      // Group memberships on deletion: groups/user-deletion.test.ts.
      groups: { removeUserEverywhere: async () => [] },
      sessions: {
        deleteForUser: async (userId) => void signedOut.push(userId),
        deleteForUserExcept: async (userId) => void signedOut.push(userId),
      },
      personalAccessTokens: tokens,
      unitOfWork: new UnitOfWork(engine, events),
      clock: () => now,
    });
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("creates users with ids in order, a lower-cased email and no password hash in the view or the event", async () => {
    const ann = await users.create({ name: "Ann", email: "Ann@Example.com", rootRole: "Editor", password: "correct horse" }, admin);
    const bob = await users.create({ username: "bob", rootRole: 3 }, admin);
    expect(ann).toMatchObject({ id: 1, name: "Ann", username: null, email: "ann@example.com", rootRole: 2, loginAttempts: 0 });
    expect(bob).toMatchObject({ id: 2, username: "bob", rootRole: 3 });
    expect(bob).not.toHaveProperty("email");
    const { events: recorded } = await events.list({ type: "user-created" });
    expect(recorded).toHaveLength(2);
    expect(JSON.stringify([ann, recorded])).not.toMatch(/scrypt|passwordHash/);
    expect((await users.listByIds([2, 9])).map((u) => u.id)).toEqual([2]);
    expect(await users.listByIds([])).toEqual([]);
  });

  it("refuses a taken username or email (whatever its case) and an unknown role, writing nothing", async () => {
    await users.create({ username: "ann", email: "ann@example.com", rootRole: 2 }, admin);
    await expect(users.create({ username: "ann", rootRole: 2 }, admin)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(users.create({ email: "ANN@example.com", rootRole: 2 }, admin)).rejects.toMatchObject({ name: "NameExistsError" });
    await expect(users.create({ username: "carl", rootRole: 99 }, admin)).rejects.toMatchObject({ name: "ValidationError" });
    expect((await users.list()).map((u) => u.username)).toEqual(["ann"]);
    expect(await eventTypes()).toEqual(["user-created"]);
  });

  it("ends a user's sign-ins when the role changes, not when only the name does", async () => {
    const { id } = await users.create({ username: "ann", rootRole: "Admin" }, admin);
    await users.update(id, { name: "Ann A." }, admin);
    expect(signedOut).toEqual([]);
    const demoted = await users.update(id, { rootRole: "Viewer" }, admin);
    expect(demoted).toMatchObject({ name: "Ann A.", rootRole: 3 });
    expect(signedOut).toEqual([id]);
    expect(await users.sessionUser(id)).toMatchObject({ username: "ann", rootRole: "Viewer" });

    const { events: updates } = await events.list({ type: "user-updated" });
    expect(updates.map((e) => [(e.preData as { rootRole: number }).rootRole, (e.data as { rootRole: number }).rootRole])).toEqual([
      [1, 3],
      [1, 1],
    ]);
  });

  it("refuses an update to another user's email or of an unknown user, changing nothing", async () => {
    const ann = await users.create({ email: "ann@example.com", rootRole: 2 }, admin);
    await users.create({ email: "bob@example.com", rootRole: 2 }, admin);
    await expect(users.update(ann.id, { email: "BOB@example.com", name: "Bob?" }, admin)).rejects.toMatchObject({
      name: "NameExistsError",
    });
    // Keeping one's own email is no clash.
    await users.update(ann.id, { email: "ann@example.com" }, admin);
    await expect(users.update(42, { name: "ghost" }, admin)).rejects.toMatchObject({ name: "NotFoundError" });
    await expect(users.get(42)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await users.get(ann.id)).toMatchObject({ name: null, email: "ann@example.com" });
    expect(await eventTypes()).toEqual(["user-created", "user-created", "user-updated"]);
  });

  it("deletes a user with their sign-ins and personal access tokens, but never the one acting", async () => {
    const { id } = await users.create({ username: "ann", rootRole: 2 }, admin);
    await tokens.insert({
      _id: await tokens.nextId(),
      digest: "d1",
      userId: id,
      description: "ci",
      expiresAt: now,
      createdAt: now,
      seenAt: null,
    });
    await expect(users.delete(id, { name: "ann", userId: id })).rejects.toMatchObject({ name: "ValidationError" });
    expect(await users.exists(id)).toBe(true);

    await users.delete(id, admin);
    expect(await users.exists(id)).toBe(false);
    expect(await users.sessionUser(id)).toBeUndefined();
    expect(signedOut).toEqual([id]);
    expect(await tokens.listForUser(id)).toEqual([]);
    await expect(users.delete(id, admin)).rejects.toMatchObject({ name: "NotFoundError" });
    expect(await eventTypes()).toEqual(["user-created", "user-deleted"]);
  });

  it("checks sign-ins without saying which half was wrong, counting failures until a success", async () => {
    const { id } = await users.create({ username: "ann", email: "ann@example.com", rootRole: 2, password: "correct horse" }, admin);
    await users.create({ username: "nopass", rootRole: 2 }, admin);
    for (const [login, password] of [
      ["ann", "wrong"],
      ["ANN@example.com", "wrong"],
      ["nobody", "correct horse"],
      ["nopass", ""],
    ]) {
      await expect(users.verifyLogin(login!, password!)).rejects.toMatchObject({
        name: "AuthenticationRequired",
        message: "The combination of password and username you provided is invalid",
      });
    }
    expect((await users.get(id)).loginAttempts).toBe(2);
    now = new Date("2030-01-02T00:00:00.000Z");
    expect(await users.verifyLogin("ann@example.com", "correct horse")).toMatchObject({ _id: id, loginAttempts: 0, seenAt: now });
    expect(await users.get(id)).toMatchObject({ loginAttempts: 0, seenAt: now.toISOString() });
    expect(await users.idIfPassword("ann", "correct horse")).toBe(id);
    expect(await users.idIfPassword("ann", "wrong")).toBeUndefined();
  });

  it("changes a password, ending the user's sign-ins, without the password in the event", async () => {
    const { id } = await users.create({ username: "ann", rootRole: 2, password: "old secret" }, admin);
    await users.changePassword(id, "new secret", admin);
    expect(signedOut).toEqual([id]);
    await expect(users.verifyLogin("ann", "old secret")).rejects.toMatchObject({ name: "AuthenticationRequired" });
    expect((await users.verifyLogin("ann", "new secret"))._id).toBe(id);
    const { events: updates } = await events.list({ type: "user-updated" });
    expect(updates.map((e) => e.data)).toEqual([{ id, passwordChanged: true }]);
    await expect(users.changePassword(42, "x", admin)).rejects.toMatchObject({ name: "NotFoundError" });
  });

  it("creates the first admin only while there are no users, once even when asked twice at once", async () => {
    const created = await Promise.all([
      users.ensureInitialAdmin({ username: "admin", password: "unleash4all" }, systemActor),
      users.ensureInitialAdmin({ username: "admin", password: "unleash4all" }, systemActor),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    expect((await users.list()).map((u) => [u.username, u.rootRole])).toEqual([["admin", 1]]);
    expect(await users.ensureInitialAdmin({ username: "second", password: "x" }, systemActor)).toBe(false);
    expect(await eventTypes()).toEqual(["user-created"]);
  });
});
