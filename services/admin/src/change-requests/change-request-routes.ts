import express, { type Request, type Router } from "express";
import { adminContract, type ChangeRequestStateInput } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
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
  /** Refuses (404) a caller who may not see the project, after the route's permission admitted them. */
  const seeing = (req: unknown, project: string) => participation.assertMaySee(asRequest(req), project);
  const move = async (req: unknown, projectId: string, id: number, input: ChangeRequestStateInput, actor: Actor) => {
    await seeing(req, projectId);
    return { status: 200 as const, body: await review.changeState(projectId, id, input, actor) };
  };

  mountGuardedContract(
    router,
    adminContract.changeRequests,
    { access },
    {
      getConfig: async ({ params, req }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await config.getConfig(params.projectId) };
      },
      putConfig: async ({ params, body, req, actor }) => {
        await seeing(req, params.projectId);
        await config.putConfig(params.projectId, params.environment, body, actor);
        return { status: 204, body: undefined };
      },
      addChanges: async ({ params, body, req, actor }) => {
        await seeing(req, params.projectId);
        await participation.assertMaySubmit(asRequest(req), params.projectId);
        return { status: 200, body: await changeRequests.addChanges(params.projectId, params.environment, body, actor) };
      },
      list: async ({ params, query, req, actor }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await changeRequests.list(params.projectId, actor, query) };
      },
      listOpen: async ({ params, req, actor }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await changeRequests.listOpen(params.projectId, actor) };
      },
      search: async ({ query, req, actor }) => {
        return { status: 200, body: await changeRequests.search(actor, query, (project) => participation.maySee(asRequest(req), project)) };
      },
      get: async ({ params, req }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await changeRequests.get(params.projectId, params.id) };
      },
      discard: async ({ params, req, actor }) => {
        await seeing(req, params.projectId);
        await changeRequests.discard(params.projectId, params.id, actor);
        return { status: 204, body: undefined };
      },
      changeState: async ({ params, body, req }) => {
        // The state the body asks for decides the permission.
        const actor = access.assert(asRequest(req), statePermission[body.state], { project: params.projectId });
        return move(req, params.projectId, params.id, body, actor);
      },
      approve: ({ params, body, req, actor }) =>
        move(req, params.projectId, params.id, { state: "Approved", comment: body?.comment }, actor),
      reject: ({ params, body, req, actor }) =>
        move(req, params.projectId, params.id, { state: "Rejected", comment: body?.comment }, actor),
      cancel: ({ params, body, req, actor }) =>
        move(req, params.projectId, params.id, { state: "Cancelled", comment: body?.comment }, actor),
      apply: ({ params, req, actor }) => move(req, params.projectId, params.id, { state: "Applied" }, actor),
      addComment: async ({ params, body, req, actor }) => {
        await seeing(req, params.projectId);
        return { status: 201, body: await changeRequests.addComment(params.projectId, params.id, body.text, actor) };
      },
      updateTitle: async ({ params, body, req, actor }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await changeRequests.updateTitle(params.projectId, params.id, body.title, actor) };
      },
      removeChange: async ({ params, req, actor }) => {
        await seeing(req, params.projectId);
        return { status: 200, body: await changeRequests.removeChange(params.projectId, params.id, params.changeId, actor) };
      },
    },
  );
  return router;
}
