import express, { type Request, type Router } from "express";
import { adminContract, type ChangeRequestStateInput } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import type { Actor } from "../access/actor.js";
import { permissions, type Permission } from "../access/permissions.js";
import type { ChangeRequestConfig } from "./change-request-config.js";
import type { ChangeRequestReview } from "./change-request-review.js";
import type { ChangeRequestService } from "./change-request-service.js";

/** Who may take part in a project's change requests, per its collaboration mode. */
export interface ProjectParticipation {
  /** Refuses (403) a caller who may not submit change requests to the project (protected mode). */
  assertMaySubmit(req: Request, project: string): Promise<void>;
  /** Refuses (404) a caller who may not see the project (private mode). */
  assertMaySee(req: Request, project: string): Promise<void>;
  maySee(req: Request, project: string): Promise<boolean>;
}

// ts-rest types `req.params`/`req.query` as parsed (numbers), which express's Request does not accept.
const asRequest = (req: unknown) => req as Request;

const statePermission: Record<ChangeRequestStateInput["state"], Permission> = {
  "In review": permissions.createChangeRequest,
  Cancelled: permissions.createChangeRequest,
  Approved: permissions.approveChangeRequest,
  Rejected: permissions.approveChangeRequest,
  Applied: permissions.applyChangeRequest,
  Scheduled: permissions.applyChangeRequest,
};

export function changeRequestRoutes({
  changeRequests,
  review,
  config,
  access,
  participation,
}: {
  changeRequests: ChangeRequestService;
  review: ChangeRequestReview;
  config: ChangeRequestConfig;
  access: AccessService;
  participation: ProjectParticipation;
}): Router {
  const router = express.Router();
  /** The caller, allowed `permission` in the project and able to see it. */
  const caller = async (request: unknown, permission: Permission, project: string, environment?: string): Promise<Actor> => {
    const req = asRequest(request);
    const actor = access.assert(req, permission, { project, environment });
    await participation.assertMaySee(req, project);
    return actor;
  };
  const move = async (req: unknown, projectId: string, id: number, input: ChangeRequestStateInput) => {
    const actor = await caller(req, statePermission[input.state], projectId);
    return { status: 200 as const, body: await review.changeState(projectId, id, input, actor) };
  };

  mountContract(router, adminContract.changeRequests, {
    getConfig: async ({ params, req }) => {
      await caller(req, permissions.read, params.projectId);
      return { status: 200, body: await config.getConfig(params.projectId) };
    },
    putConfig: async ({ params, body, req }) => {
      const actor = await caller(req, permissions.updateProject, params.projectId, params.environment);
      await config.putConfig(params.projectId, params.environment, body, actor);
      return { status: 204, body: undefined };
    },
    addChanges: async ({ params, body, req }) => {
      const actor = await caller(req, permissions.createChangeRequest, params.projectId, params.environment);
      await participation.assertMaySubmit(asRequest(req), params.projectId);
      return { status: 200, body: await changeRequests.addChanges(params.projectId, params.environment, body, actor) };
    },
    list: async ({ params, query, req }) => {
      const actor = await caller(req, permissions.read, params.projectId);
      return { status: 200, body: await changeRequests.list(params.projectId, actor, query) };
    },
    listOpen: async ({ params, req }) => {
      const actor = await caller(req, permissions.read, params.projectId);
      return { status: 200, body: await changeRequests.listOpen(params.projectId, actor) };
    },
    search: async ({ query, req }) => {
      const actor = access.assert(asRequest(req), permissions.read);
      return { status: 200, body: await changeRequests.search(actor, query, (project) => participation.maySee(asRequest(req), project)) };
    },
    get: async ({ params, req }) => {
      await caller(req, permissions.read, params.projectId);
      return { status: 200, body: await changeRequests.get(params.projectId, params.id) };
    },
    discard: async ({ params, req }) => {
      const actor = await caller(req, permissions.createChangeRequest, params.projectId);
      await changeRequests.discard(params.projectId, params.id, actor);
      return { status: 204, body: undefined };
    },
    changeState: ({ params, body, req }) => move(req, params.projectId, params.id, body),
    approve: ({ params, body, req }) => move(req, params.projectId, params.id, { state: "Approved", comment: body?.comment }),
    reject: ({ params, body, req }) => move(req, params.projectId, params.id, { state: "Rejected", comment: body?.comment }),
    cancel: ({ params, body, req }) => move(req, params.projectId, params.id, { state: "Cancelled", comment: body?.comment }),
    apply: ({ params, req }) => move(req, params.projectId, params.id, { state: "Applied" }),
    addComment: async ({ params, body, req }) => {
      const actor = await caller(req, permissions.read, params.projectId);
      return { status: 201, body: await changeRequests.addComment(params.projectId, params.id, body.text, actor) };
    },
    updateTitle: async ({ params, body, req }) => {
      const actor = await caller(req, permissions.createChangeRequest, params.projectId);
      return { status: 200, body: await changeRequests.updateTitle(params.projectId, params.id, body.title, actor) };
    },
    removeChange: async ({ params, req }) => {
      const actor = await caller(req, permissions.createChangeRequest, params.projectId);
      return { status: 200, body: await changeRequests.removeChange(params.projectId, params.id, params.changeId, actor) };
    },
  });
  return router;
}
