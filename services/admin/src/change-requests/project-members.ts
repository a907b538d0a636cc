/**
 * A minimal project membership, enough for collaboration modes: users hold a project role (Owner
 * or Member, Unleash's ids) in a project. `protected` projects take change requests only from
 * members; `private` projects are hidden from non-members. Admin API tokens and root Admins count
 * as members of every project.
 */
import express, { type Request, type Router } from "express";
import { getPrincipal } from "@vexil/auth";
import { adminContract, projectRoleIds } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import { mountContract } from "@vexil/http";
import type { Collection, StoreEngine } from "@vexil/store";
import type { AccessService, Actor } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ProjectParticipation } from "./change-request-routes.js";
import { ChangeRequestForbidden } from "./change-request-rules.js";

interface MemberDocument {
  /** `<project>:<userId>` */
  _id: string;
  project: string;
  userId: number;
  roles: number[];
  addedAt: Date;
}

const projectRoles = [
  { id: projectRoleIds.owner, name: "Owner", type: "project" as const },
  { id: projectRoleIds.member, name: "Member", type: "project" as const },
];

export class ProjectMembers implements ProjectParticipation {
  private constructor(
    private readonly deps: {
      members: Collection<MemberDocument>;
      projects: { get(project: string): Promise<{ mode: string }>; find(project: string): Promise<{ mode: string } | null> };
      userExists: (id: number) => Promise<boolean>;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  static async create(deps: Omit<ProjectMembers["deps"], "members"> & { engine: StoreEngine }): Promise<ProjectMembers> {
    const members: Collection<MemberDocument> = deps.engine.collection("project_members");
    await members.createIndex({ project: 1 });
    return new ProjectMembers({ ...deps, members });
  }

  async list(project: string) {
    await this.deps.projects.get(project);
    const members = await this.deps.members.find({ project }, { sort: { userId: 1 } });
    return { roles: projectRoles, users: members.map((m) => ({ id: m.userId, roles: m.roles, addedAt: m.addedAt.toISOString() })) };
  }

  count(project: string): Promise<number> {
    return this.deps.members.countDocuments({ project });
  }

  async add(project: string, userIds: number[], roles: number[], actor: Actor): Promise<void> {
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
    await this.deps.unitOfWork.run(async (tx) => {
      for (const userId of userIds) {
        await this.deps.members.updateOne(
          { _id: `${project}:${userId}` },
          { $set: { project, userId }, $addToSet: { roles: { $each: roles } }, $setOnInsert: { addedAt: this.deps.clock() } },
          { upsert: true, session: tx.session },
        );
        await tx.record({ type: "project-access-added", actor, project, data: { userId, roles } });
      }
    });
  }

  async remove(project: string, userId: number, actor: Actor): Promise<void> {
    await this.deps.projects.get(project);
    await this.deps.unitOfWork.run(async (tx) => {
      const removed = await this.deps.members.deleteOne({ _id: `${project}:${userId}` }, { session: tx.session });
      if (removed.deletedCount === 0) throw new NotFoundError(`User ${userId} is not a member of project ${project}`);
      await tx.record({ type: "project-access-user-roles-deleted", actor, project, data: { userId } });
    });
  }

  /** Members, admin API tokens and root Admins. */
  async isMember(req: Request, project: string): Promise<boolean> {
    const principal = getPrincipal(req);
    if (!principal) return false;
    if (principal.kind === "api-token") return principal.grant.type === "admin";
    if (principal.user.rootRole === "Admin") return true;
    return (await this.deps.members.countDocuments({ _id: `${project}:${principal.user.id}` })) > 0;
  }

  async maySee(req: Request, project: string): Promise<boolean> {
    const doc = await this.deps.projects.find(project);
    if (!doc || doc.mode !== "private") return true;
    return this.isMember(req, project);
  }

  async assertMaySee(req: Request, project: string): Promise<void> {
    if (!(await this.maySee(req, project))) throw new NotFoundError(`Could not find project ${project}`);
  }

  async assertMaySubmit(req: Request, project: string): Promise<void> {
    const { mode } = await this.deps.projects.get(project);
    if (mode === "open" || (await this.isMember(req, project))) return;
    throw new ChangeRequestForbidden(
      permissions.createChangeRequest,
      `Project ${project} is ${mode}: only its members may submit change requests`,
    );
  }

  /**
   * Keeps private projects out of sight of non-members on every admin path: 404 under
   * `/projects/:project`, and the project and its flags left out of project and flag lists.
   */
  privacyMiddleware(): Router {
    const router = express.Router();
    router.use("/api/admin/projects/:projectId", async (req, _res, next) => {
      try {
        await this.assertMaySee(req, req.params.projectId!);
        next();
      } catch (err) {
        next(err);
      }
    });
    const hideFrom =
      (key: "projects" | "features", projectOf: (item: Record<string, unknown>) => unknown) =>
      (req: Request, res: express.Response, next: express.NextFunction) => {
        const json = res.json.bind(res);
        res.json = (body: unknown) => {
          const list = (body as Record<string, unknown> | null)?.[key];
          if (res.statusCode !== 200 || !Array.isArray(list)) return json(body);
          void Promise.all(list.map((item: Record<string, unknown>) => this.maySee(req, String(projectOf(item)))))
            .then((visible) => json({ ...(body as object), [key]: list.filter((_, i) => visible[i]) }))
            .catch(next);
          return res;
        };
        next();
      };
    router.get(
      "/api/admin/projects",
      hideFrom("projects", (p) => p.id),
    );
    router.get(
      "/api/admin/features",
      hideFrom("features", (f) => f.project),
    );
    router.get(
      "/api/admin/search/features",
      hideFrom("features", (f) => f.project),
    );
    return router;
  }

  routes(access: AccessService): Router {
    const router = express.Router();
    mountContract(router, adminContract.projectAccess, {
      list: async ({ params, req }) => {
        access.assert(req, permissions.read, { project: params.projectId });
        await this.assertMaySee(req, params.projectId);
        return { status: 200, body: await this.list(params.projectId) };
      },
      add: async ({ params, body, req }) => {
        const actor = access.assert(req, permissions.updateProject, { project: params.projectId });
        await this.add(
          params.projectId,
          body.users.map((u) => u.id),
          body.roles,
          actor,
        );
        return { status: 200, body: undefined };
      },
      remove: async ({ params, req }) => {
        const actor = access.assert(req, permissions.updateProject, { project: params.projectId });
        await this.remove(params.projectId, params.userId, actor);
        return { status: 200, body: undefined };
      },
    });
    return router;
  }
}
