import type { SessionUser } from "@vexil/auth";
import type { Group, GroupInput } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import type { HeldProjectRoles } from "../project-members/project-member-store.js";
import { rootRoleById } from "../roles/root-roles.js";
import type { UserView } from "../users/user-service.js";
import type { GroupDocument, GroupStore } from "./group-store.js";

/** What groups read about users (UserService). */
export interface GroupUsers {
  listByIds(ids: number[]): Promise<UserView[]>;
  exists(id: number): Promise<boolean>;
}

/** The project roles given in person and to groups (the project member store). */
export interface ProjectRoleGrants {
  heldByUser(userId: number): Promise<HeldProjectRoles[]>;
  heldByGroups(groupIds: number[]): Promise<HeldProjectRoles[]>;
  removeGroupEverywhere(groupId: number, session: StoreSession): Promise<void>;
}

/** Where a membership change came from, as events name it. */
export type SyncSource = "saml" | "oidc";

/** Event data: the group without its members' details. */
function describe(doc: GroupDocument) {
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    mappingsSSO: doc.mappingsSSO,
    rootRole: doc.rootRole,
    users: doc.members.map((m) => m.userId),
  };
}

export class GroupService {
  constructor(
    private readonly deps: {
      groups: GroupStore;
      users: GroupUsers;
      projectRoles: ProjectRoleGrants;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async list(): Promise<Group[]> {
    return this.views(await this.deps.groups.list());
  }

  async get(id: number): Promise<Group> {
    return (await this.views([await this.require(id)]))[0]!;
  }

  async exists(id: number): Promise<boolean> {
    return (await this.deps.groups.get(id)) !== null;
  }

  async create(input: GroupInput, actor: Actor): Promise<Group> {
    await this.validate(input);
    const doc = await this.deps.unitOfWork.run(async (tx) => {
      const now = this.deps.clock();
      const created: GroupDocument = {
        _id: await this.deps.groups.nextId(),
        name: input.name,
        description: input.description ?? null,
        mappingsSSO: [...new Set(input.mappingsSSO)],
        rootRole: input.rootRole,
        members: this.members(input, [], now, actor),
        createdAt: now,
        createdBy: actor.name,
      };
      await this.deps.groups.put(created, tx.session);
      await tx.record({ type: "group-created", actor, data: describe(created) });
      return created;
    });
    return this.get(doc._id);
  }

  async update(id: number, input: GroupInput, actor: Actor): Promise<Group> {
    await this.validate(input);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(id, tx.session);
      const after: GroupDocument = {
        ...before,
        name: input.name,
        description: input.description ?? null,
        mappingsSSO: [...new Set(input.mappingsSSO)],
        rootRole: input.rootRole,
        members: this.members(input, before.members, this.deps.clock(), actor),
      };
      await this.deps.groups.put(after, tx.session);
      await tx.record({ type: "group-updated", actor, data: describe(after), preData: describe(before) });
    });
    return this.get(id);
  }

  async delete(id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(id, tx.session);
      await this.deps.groups.delete(id, tx.session);
      await this.deps.projectRoles.removeGroupEverywhere(id, tx.session);
      await tx.record({ type: "group-deleted", actor, preData: describe(before) });
    });
  }

  /**
   * Makes the user a member of exactly the groups that map one of `idpGroups`, among the groups
   * that map any: groups without SSO mappings are managed by hand and left alone. Runs in the
   * sign-in's transaction, one event per membership added or removed.
   */
  async syncMemberships(userId: number, idpGroups: string[], source: SyncSource, actor: Actor, tx: Transaction): Promise<void> {
    const wanted = await this.deps.groups.mapping(idpGroups, tx.session);
    const wantedIds = new Set(wanted.map((g) => g._id));
    const now = this.deps.clock();
    for (const group of wanted) {
      if (group.members.some((m) => m.userId === userId)) continue;
      await this.deps.groups.put({ ...group, members: [...group.members, { userId, joinedAt: now, createdBy: actor.name }] }, tx.session);
      await tx.record({ type: "group-user-added", actor, data: { groupId: group._id, groupName: group.name, userId, source } });
    }
    for (const group of await this.deps.groups.ofUser(userId, tx.session)) {
      if (wantedIds.has(group._id) || group.mappingsSSO.length === 0) continue;
      await this.deps.groups.put({ ...group, members: group.members.filter((m) => m.userId !== userId) }, tx.session);
      await tx.record({ type: "group-user-removed", actor, data: { groupId: group._id, groupName: group.name, userId, source } });
    }
  }

  /**
   * What the user may do, read at each request so a change of groups reaches open sessions at
   * once: the strongest of its own root role and its groups' (Admin 1 over Editor 2 over Viewer 3),
   * and the project roles it holds in person or through a group.
   */
  async accessOf(user: SessionUser): Promise<SessionUser> {
    const groups = await this.deps.groups.ofUser(user.id);
    const [own, viaGroups] = await Promise.all([
      this.deps.projectRoles.heldByUser(user.id),
      this.deps.projectRoles.heldByGroups(groups.map((g) => g._id)),
    ]);
    const strongest = Math.min(rootRoleIdOf(user.rootRole), ...groups.map((g) => g.rootRole).filter((r): r is number => r !== null));
    const projectRoles: Record<string, number[]> = {};
    for (const { project, roles } of [...own, ...viaGroups])
      projectRoles[project] = [...new Set([...(projectRoles[project] ?? []), ...roles])];
    return { ...user, rootRole: rootRoleById(strongest).name, projectRoles };
  }

  private async validate(input: GroupInput): Promise<void> {
    if (input.rootRole !== null) rootRoleById(input.rootRole);
    for (const { user } of input.users) {
      if (!(await this.deps.users.exists(user.id)))
        throw new ValidationError(`Invalid users: no user with id ${user.id}`, [{ path: "users", message: "Unknown user" }]);
    }
  }

  /** The members the input lists, keeping when and by whom those already in joined. */
  private members(input: GroupInput, before: GroupDocument["members"], now: Date, actor: Actor): GroupDocument["members"] {
    const ids = [...new Set(input.users.map((u) => u.user.id))];
    return ids.map((userId) => before.find((m) => m.userId === userId) ?? { userId, joinedAt: now, createdBy: actor.name });
  }

  private async require(id: number, session?: StoreSession): Promise<GroupDocument> {
    const doc = await this.deps.groups.get(id, session);
    if (!doc) throw new NotFoundError(`Could not find group with id ${id}`);
    return doc;
  }

  /** Members who are still users, with their names (a deleted user drops out). */
  private async views(docs: GroupDocument[]): Promise<Group[]> {
    const users = new Map(
      (await this.deps.users.listByIds([...new Set(docs.flatMap((d) => d.members.map((m) => m.userId)))])).map((u) => [u.id, u]),
    );
    return docs.map((doc) => {
      const members = doc.members.flatMap((m) => {
        const user = users.get(m.userId);
        if (!user) return [];
        return [
          {
            user: { id: user.id, name: user.name, username: user.username, ...(user.email ? { email: user.email } : {}) },
            joinedAt: m.joinedAt.toISOString(),
            createdBy: m.createdBy,
          },
        ];
      });
      return {
        id: doc._id,
        name: doc.name,
        description: doc.description,
        mappingsSSO: doc.mappingsSSO,
        rootRole: doc.rootRole,
        users: members,
        userCount: members.length,
        createdAt: doc.createdAt.toISOString(),
        createdBy: doc.createdBy,
      };
    });
  }
}

const rootRoleIdOf = (name: SessionUser["rootRole"]): number => ({ Admin: 1, Editor: 2, Viewer: 3 })[name];
