/**
 * Groups wired as compose/ wires them: what a group's root and project roles let its members do,
 * and how single sign-on moves users in and out of the groups that map their identity provider's.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Principal, SessionUser } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { projectRoleIds } from "@vexil/contracts";
import { createLogger } from "@vexil/logger";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import type { Actor } from "./access/actor.js";
import { permissions } from "./access/permissions.js";
import { createAdminDeps, type AdminDeps } from "./compose/index.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";

const admin: Actor = { name: "admin", userId: 1 };

describe("groups", { timeout: 60_000 }, () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let deps: AdminDeps;

  beforeEach(async () => {
    temp = await tempEngine("groups");
    engine = temp.engine;
    deps = await createAdminDeps({
      engines: { store: engine, bus: createMemoryBus(), cache: createMemoryCache() },
      settings: { INIT_ADMIN_API_TOKENS: [], INIT_CLIENT_API_TOKENS: [], INIT_FRONTEND_API_TOKENS: [] },
      secrets: testSecretBox(),
      logger: createLogger({ service: "groups-test", level: "silent" }),
    });
    await deps.flags.projectService.create({ id: "payments", name: "Payments" }, admin);
  });
  afterEach(async () => {
    await temp.remove();
  });

  const viewer = async (email: string) => deps.governance.users.create({ email, rootRole: "Viewer" }, admin);
  const principal = async (id: number): Promise<Principal> => {
    const user = (await deps.governance.users.sessionUser(id)) as SessionUser;
    return { kind: "user", via: "session", sessionId: "s", user: await deps.governance.groups.accessOf(user) };
  };
  const eventsOf = async (type: string) => (await deps.events.list()).events.filter((e) => e.type === type);

  it("lets members act with the group's project role in that project only, and its root role everywhere", async () => {
    const ann = await viewer("ann@example.com");
    const editors = await deps.governance.groups.create(
      { name: "payments-editors", mappingsSSO: [], rootRole: null, users: [{ user: { id: ann.id } }] },
      admin,
    );
    const canUpdate = async (project: string) =>
      deps.access.can(await principal(ann.id), permissions.updateFeatureEnvironment, { project, environment: "development" });

    expect(await canUpdate("payments")).toBe(false);
    await deps.changeRequests.projectMembers.add("payments", [], [projectRoleIds.member], admin, [editors.id]);
    expect(await canUpdate("payments")).toBe(true);
    expect(await canUpdate("default")).toBe(false);
    // A Member may not change the project itself; an API-less Viewer still cannot manage users.
    expect(deps.access.can(await principal(ann.id), permissions.updateProject, { project: "payments" })).toBe(false);
    expect((await deps.changeRequests.projectMembers.list("payments")).groups).toEqual([
      { id: editors.id, roles: [projectRoleIds.member], addedAt: expect.any(String) },
    ]);

    await deps.governance.groups.update(
      editors.id,
      { name: "payments-editors", mappingsSSO: [], rootRole: 2, users: [{ user: { id: ann.id } }] },
      admin,
    );
    expect(await canUpdate("default")).toBe(true);
    expect(deps.access.can(await principal(ann.id), permissions.admin)).toBe(false);

    await deps.governance.groups.delete(editors.id, admin);
    expect(await canUpdate("payments")).toBe(false);
    expect((await deps.changeRequests.projectMembers.list("payments")).groups).toEqual([]);
    expect((await eventsOf("group-deleted")).length).toBe(1);
  });

  it("moves a user into the groups that map the identity provider's groups and out of the others, leaving hand-managed groups alone", async () => {
    const bob = await viewer("bob@example.com");
    const mapped = await deps.governance.groups.create({ name: "eng", mappingsSSO: ["engineering"], rootRole: null, users: [] }, admin);
    const other = await deps.governance.groups.create(
      { name: "ops", mappingsSSO: ["operations"], rootRole: null, users: [{ user: { id: bob.id } }] },
      admin,
    );
    const manual = await deps.governance.groups.create(
      { name: "manual", mappingsSSO: [], rootRole: null, users: [{ user: { id: bob.id } }] },
      admin,
    );

    await deps.unitOfWork.run((tx) => deps.governance.groups.syncMemberships(bob.id, ["engineering", "unknown"], "saml", admin, tx));
    const members = async (id: number) => (await deps.governance.groups.get(id)).users.map((u) => u.user.id);
    expect(await members(mapped.id)).toEqual([bob.id]);
    expect(await members(other.id)).toEqual([]);
    expect(await members(manual.id)).toEqual([bob.id]);
    expect((await eventsOf("group-user-added")).map((e) => e.data)).toEqual([
      { groupId: mapped.id, groupName: "eng", userId: bob.id, source: "saml" },
    ]);
    expect((await eventsOf("group-user-removed")).map((e) => e.data)).toEqual([
      { groupId: other.id, groupName: "ops", userId: bob.id, source: "saml" },
    ]);

    // The same answer again changes nothing and records nothing.
    await deps.unitOfWork.run((tx) => deps.governance.groups.syncMemberships(bob.id, ["engineering"], "saml", admin, tx));
    expect((await eventsOf("group-user-added")).length).toBe(1);
  });

  it("refuses a duplicate name, an unknown root role or user, and an unknown group in project access, writing nothing", async () => {
    await deps.governance.groups.create({ name: "eng", mappingsSSO: [], rootRole: null, users: [] }, admin);
    await expect(deps.governance.groups.create({ name: "eng", mappingsSSO: [], rootRole: null, users: [] }, admin)).rejects.toMatchObject({
      name: "NameExistsError",
    });
    await expect(deps.governance.groups.create({ name: "x", mappingsSSO: [], rootRole: 9, users: [] }, admin)).rejects.toMatchObject({
      name: "ValidationError",
    });
    await expect(
      deps.governance.groups.create({ name: "y", mappingsSSO: [], rootRole: null, users: [{ user: { id: 4242 } }] }, admin),
    ).rejects.toMatchObject({ name: "ValidationError" });
    await expect(deps.changeRequests.projectMembers.add("payments", [], [projectRoleIds.member], admin, [777])).rejects.toMatchObject({
      name: "ValidationError",
    });
    await expect(deps.governance.groups.get(777)).rejects.toMatchObject({ name: "NotFoundError" });
    expect((await deps.governance.groups.list()).map((g) => g.name)).toEqual(["eng"]);
    expect((await eventsOf("group-created")).length).toBe(1);
  });
});
