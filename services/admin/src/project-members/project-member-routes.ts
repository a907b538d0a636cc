import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { getPrincipal } from "@vexil/auth";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { ProjectParticipation } from "../change-requests/change-request-routes.js";
import type { ProjectMemberService } from "./project-member-service.js";

/** Membership checks for the caller of a request, as the change-request and export routes ask them. */
export function requestParticipation(members: ProjectMemberService): ProjectParticipation {
  return {
    assertMaySubmit: (req, project) => members.assertMaySubmit(getPrincipal(req), project),
    assertMaySee: (req, project) => members.assertMaySee(getPrincipal(req), project),
    maySee: (req, project) => members.maySee(getPrincipal(req), project),
  };
}

/**
 * Mounted before every other admin route: private projects are invisible to non-members (404
 * under `/projects/:project`, left out of project and flag lists). Then the project access routes.
 */
export function projectMemberRoutes({ members, access }: { members: ProjectMemberService; access: AccessService }): Router {
  const router = express.Router();
  router.use("/api/admin/projects/:projectId", async (req, _res, next) => {
    try {
      await members.assertMaySee(getPrincipal(req), req.params.projectId!);
      next();
    } catch (err) {
      next(err);
    }
  });
  const hideFrom =
    (key: "projects" | "features", projectOf: (item: Record<string, unknown>) => unknown) =>
    (req: Request, res: Response, next: NextFunction) => {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const list = (body as Record<string, unknown> | null)?.[key];
        if (res.statusCode !== 200 || !Array.isArray(list)) return json(body);
        const principal = getPrincipal(req);
        void Promise.all(list.map((item: Record<string, unknown>) => members.maySee(principal, String(projectOf(item)))))
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

  mountGuardedContract(
    router,
    adminContract.projectAccess,
    { access },
    {
      list: async ({ params, req }) => {
        await members.assertMaySee(getPrincipal(req), params.projectId);
        return { status: 200, body: await members.list(params.projectId) };
      },
      add: async ({ params, body, actor }) => {
        await members.add(
          params.projectId,
          body.users.map((u) => u.id),
          body.roles,
          actor,
          body.groups.map((g) => g.id),
        );
        return { status: 200, body: undefined };
      },
      remove: async ({ params, actor }) => {
        await members.remove(params.projectId, params.userId, actor);
        return { status: 200, body: undefined };
      },
      removeGroup: async ({ params, actor }) => {
        await members.removeGroup(params.projectId, params.groupId, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
