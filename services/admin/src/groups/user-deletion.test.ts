import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import type { Actor } from "../access/actor.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { createProjectMemberStore } from "../project-members/project-member-store.js";
import { createPersonalAccessTokenStore } from "../users/personal-access-token-store.js";
import { UserService } from "../users/user-service.js";
import { createUserStore } from "../users/user-store.js";
import { GroupService } from "./group-service.js";
import { createGroupStore } from "./group-store.js";

const admin: Actor = { name: "admin", userId: 99, email: null };

describe("deleting a user", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let users: UserService;
  let groups: GroupService;
  const now = new Date("2030-01-01T00:00:00.000Z");
  const eventTypes = async () => (await events.list()).events.map((e) => e.type).reverse();

  beforeEach(async () => {
    temp = await tempEngine("group-users");
    engine = temp.engine;
    events = await EventStore.create(engine, () => now);
    const unitOfWork = new UnitOfWork(engine, events);
    const groupStore = await createGroupStore(engine);
    users = new UserService({
      users: await createUserStore(engine),
      sessions: { deleteForUser: async () => undefined, deleteForUserExcept: async () => undefined },
      personalAccessTokens: await createPersonalAccessTokenStore(engine),
      groups: groupStore,
      unitOfWork,
      clock: () => now,
    });
    groups = new GroupService({
      groups: groupStore,
      users,
      projectRoles: await createProjectMemberStore(engine),
      unitOfWork,
      clock: () => now,
    });
  });
  afterEach(() => temp.remove());

  it("takes a deleted user out of every group, hand-managed or synced, with an event per group", async () => {
    const ann = await users.create({ username: "ann", rootRole: 3 }, admin);
    const bob = await users.create({ username: "bob", rootRole: 3 }, admin);
    const synced = await groups.create(
      {
        name: "payments",
        mappingsSSO: ["payments-engineers"],
        rootRole: null,
        users: [{ user: { id: ann.id } }, { user: { id: bob.id } }],
      },
      admin,
    );
    const byHand = await groups.create({ name: "reviewers", mappingsSSO: [], rootRole: 2, users: [{ user: { id: ann.id } }] }, admin);
    const untouched = await groups.create({ name: "others", mappingsSSO: [], rootRole: null, users: [{ user: { id: bob.id } }] }, admin);

    await users.delete(ann.id, admin);
    const members = async (id: number) => (await groups.get(id)).users.map((u) => u.user.id);
    expect(await members(synced.id)).toEqual([bob.id]);
    expect(await members(byHand.id)).toEqual([]);
    expect(await members(untouched.id)).toEqual([bob.id]);
    expect((await groups.list()).map((g) => g.userCount)).toEqual([1, 0, 1]);
    // Stored without her, not only shown without her.
    expect(JSON.stringify(await engine.collection("groups").find({}))).not.toContain(`"userId":${ann.id}`);
    const removed = (await events.list({ type: "group-user-removed" })).events.map((e) => e.data).reverse();
    expect(removed).toEqual([
      { groupId: synced.id, groupName: "payments", userId: ann.id, source: "user-deleted" },
      { groupId: byHand.id, groupName: "reviewers", userId: ann.id, source: "user-deleted" },
    ]);
    expect((await eventTypes()).slice(-3)).toEqual(["group-user-removed", "group-user-removed", "user-deleted"]);
  });
});
