/**
 * A minimal project membership, enough for collaboration modes: users hold a project role (Owner
 * or Member, Unleash's ids) in a project. `protected` projects take change requests only from
 * members; `private` projects are hidden from non-members. Admin API tokens and root Admins count
 * as members of every project.
 */
import type { Principal } from "@vexil/auth";
import { projectRoleIds } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import { permissions } from "../access/permissions.js";
import { ChangeRequestForbidden } from "../change-requests/change-request-rules.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ProjectMemberStore } from "./project-member-store.js";

const projectRoles = [
  { id: projectRoleIds.owner, name: "Owner", type: "project" as const },
  { id: projectRoleIds.member, name: "Member", type: "project" as const },
];

/** What membership reads about a project (ProjectService): `get` is a 404 when there is none. */
export interface MemberProjects {
  get(project: string): Promise<{ mode: string }>;
  find(project: string): Promise<{ mode: string } | null>;
  privateProjects(): Promise<string[]>;
}

export class ProjectMemberService {
  constructor(
    private readonly deps: {
      members: ProjectMemberStore;
      projects: MemberProjects;
      userExists: (id: number) => Promise<boolean>;
      groupExists: (id: number) => Promise<boolean>;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async list(project: string) {
    await this.deps.projects.get(project);
    const [members, groups] = await Promise.all([this.deps.members.list(project), this.deps.members.listGroups(project)]);
    return {
      roles: projectRoles,
      users: members.map((m) => ({ id: m.userId, roles: m.roles, addedAt: m.addedAt.toISOString() })),
      groups: groups.map((g) => ({ id: g.groupId, roles: g.roles, addedAt: g.addedAt.toISOString() })),
    };
  }

  async add(project: string, userIds: number[], roles: number[], actor: Actor, groupIds: number[] = []): Promise<void> {
    await this.deps.projects.get(project);
    const unknownRole = roles.find((r) => !projectRoles.some((p) => p.id === r));
    if (unknownRole !== undefined)
      throw new ValidationError(`Invalid roles: ${unknownRole} is not a project role`, [
        { path: "roles", message: "Unknown project role" },
      ]);
    for (const id of userIds) {
      if (!(await this.deps.userExists(id)))
        throw new ValidationError(`Invalid users: no user with id ${id}`, [{ path: "users", message: "Unknown user" }]);
    }
    for (const id of groupIds) {
      if (!(await this.deps.groupExists(id)))
        throw new ValidationError(`Invalid groups: no group with id ${id}`, [{ path: "groups", message: "Unknown group" }]);
    }
    await this.deps.unitOfWork.run(async (tx) => {
      for (const userId of userIds) {
        await this.deps.members.addRoles(project, userId, roles, this.deps.clock(), tx.session);
        await tx.record({ type: "project-access-added", actor, project, data: { userId, roles } });
      }
      for (const groupId of groupIds) {
        await this.deps.members.addGroupRoles(project, groupId, roles, this.deps.clock(), tx.session);
        await tx.record({ type: "project-access-added", actor, project, data: { groupId, roles } });
      }
    });
  }

  async removeGroup(project: string, groupId: number, actor: Actor): Promise<void> {
    await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      if (!(await this.deps.members.removeGroup(project, groupId, tx.session)))
        throw new NotFoundError(`Group ${groupId} has no role in project ${project}`);
      await tx.record({ type: "project-access-group-roles-deleted", actor, project, data: { groupId } });
    });
  }

  async remove(project: string, userId: number, actor: Actor): Promise<void> {
    await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      if (!(await this.deps.members.remove(project, userId, tx.session)))
        throw new NotFoundError(`User ${userId} is not a member of project ${project}`);
      await tx.record({ type: "project-access-user-roles-deleted", actor, project, data: { userId } });
    });
  }

  /** Members, admin API tokens and root Admins. */
  async isMember(principal: Principal | undefined, project: string): Promise<boolean> {
    if (!principal) return false;
    if (principal.kind === "api-token") return principal.grant.type === "admin";
    if (principal.user.rootRole === "Admin") return true;
    // Roles held through a group come with the signed-in user (see GroupService.accessOf).
    if (principal.user.projectRoles?.[project]?.length) return true;
    return this.deps.members.isMember(project, principal.user.id);
  }

  async maySee(principal: Principal | undefined, project: string): Promise<boolean> {
    const doc = await this.deps.projects.find(project);
    if (!doc || doc.mode !== "private") return true;
    return this.isMember(principal, project);
  }

  /** The private projects the caller is no member of: whatever belongs to them is hidden from it. */
  async hiddenFrom(principal: Principal | undefined): Promise<string[]> {
    const privateProjects = await this.deps.projects.privateProjects();
    const member = await Promise.all(privateProjects.map((project) => this.isMember(principal, project)));
    return privateProjects.filter((_, i) => !member[i]);
  }

  async assertMaySee(principal: Principal | undefined, project: string): Promise<void> {
    if (!(await this.maySee(principal, project))) throw new NotFoundError(`Could not find project ${project}`);
  }

  async assertMaySubmit(principal: Principal | undefined, project: string): Promise<void> {
    const { mode } = await this.deps.projects.get(project);
    if (mode === "open" || (await this.isMember(principal, project))) return;
    throw new ChangeRequestForbidden(
      permissions.createChangeRequest,
      `Project ${project} is ${mode}: only its members may submit change requests`,
    );
  }
}
