import { z } from "zod";
import { permissions, requires, unguarded } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import {
  addProjectAccessBodySchema,
  changeRequestBodySchema,
  changeRequestCommentInputSchema,
  changeRequestCommentSchema,
  changeRequestConfigInputSchema,
  changeRequestEnvironmentConfigListSchema,
  changeRequestListQuerySchema,
  changeRequestReviewInputSchema,
  changeRequestListSchema,
  changeRequestSchema,
  changeRequestSearchResultSchema,
  changeRequestSearchQuerySchema,
  changeRequestStateInputSchema,
  changeRequestTitleInputSchema,
  projectAccessSchema,
} from "../schemas/index.js";

const project = "/projects/:projectId";
const one = `${project}/change-requests/:id`;
const idParams = z.object({ projectId: z.string(), id: z.coerce.number().int() });

/**
 * Change requests as Unleash Enterprise serves them. `addChanges` (POST .../environments/:environment/change-requests) is the spec's; the
 * rest follow the paths Unleash's UI calls, plus `approve`/`reject`/`cancel`/`apply` shortcuts for
 * the corresponding `state` moves.
 */
export const changeRequestsContract = c.router(
  {
    getConfig: {
      method: "GET",
      path: `${project}/change-requests/config`,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "Change-request configuration of every environment of the project",
      description: "For each environment of the project: whether change requests are required there and how many approvals they need.",
      responses: { 200: changeRequestEnvironmentConfigListSchema, ...errorResponses(401, 403, 404) },
    },
    putConfig: {
      method: "PUT",
      path: `${project}/environments/:environment/change-requests/config`,
      summary: "Enable or disable change requests in a project environment",
      description:
        "Turns change requests on or off for one environment of the project. While on, direct changes to flags in that environment are refused with 403 and must be proposed instead.",
      metadata: {
        ...requires(permissions.updateProject, { project: "params.projectId", environment: "params.environment" }),
        requestExample: { changeRequestsEnabled: true, requiredApprovals: 2 },
      },
      body: changeRequestConfigInputSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    // Adds the changes to the caller's open change request for this project and environment,
    // creating one if there is none. The spec lists no error statuses for this endpoint.
    addChanges: {
      method: "POST",
      path: "/projects/:projectId/environments/:environment/change-requests",
      summary: "Add changes to a change request",
      description:
        "Proposes one change or a list of them (strategies, on/off, variants, dependencies, archiving, segments). They join the caller's draft for this project and environment, or start one. Each change is checked as the direct change would be, so a bad payload is a 400 now rather than a failure at apply.",
      metadata: {
        ...requires(permissions.createChangeRequest, { project: "params.projectId", environment: "params.environment" }),
        requestExample: [
          {
            action: "addStrategy",
            feature: "new-checkout",
            payload: {
              name: "flexibleRollout",
              constraints: [],
              parameters: { rollout: "25", stickiness: "default", groupId: "new-checkout" },
            },
          },
          { action: "updateEnabled", feature: "new-checkout", payload: { enabled: true } },
        ],
      },
      body: changeRequestBodySchema,
      responses: { 200: changeRequestSchema },
    },
    list: {
      method: "GET",
      path: `${project}/change-requests`,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "Change requests of a project (others' drafts excluded), optionally by state or creator",
      description:
        "The project's change requests, newest first, optionally filtered by `state` or `createdBy`. Drafts of other users are not shown.",
      query: changeRequestListQuerySchema,
      responses: { 200: changeRequestListSchema, ...errorResponses(400, 401, 403, 404) },
    },
    listOpen: {
      method: "GET",
      path: `${project}/change-requests/open`,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "The caller's change requests of the project that are not yet applied, rejected or cancelled",
      description: "The caller's change requests in this project that can still change: drafts, in review, approved and scheduled.",
      responses: { 200: changeRequestListSchema, ...errorResponses(401, 403, 404) },
    },
    search: {
      method: "GET",
      path: "/search/change-requests",
      metadata: requires(permissions.read),
      summary: "Change requests across projects by creator, state and project",
      description: "Change requests across the projects the caller can see, by creator, state and project.",
      query: changeRequestSearchQuerySchema,
      responses: {
        200: changeRequestSearchResultSchema,
        ...errorResponses(400, 401, 403),
      },
    },
    get: {
      method: "GET",
      path: one,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      pathParams: idParams,
      summary: "One change request",
      description:
        "One change request with its changes grouped by flag, reviews, comments, schedule and the conflicts its changes have with the flags as they are now.",
      responses: { 200: changeRequestSchema, ...errorResponses(401, 403, 404) },
    },
    discard: {
      method: "DELETE",
      path: one,
      metadata: requires(permissions.createChangeRequest, { project: "params.projectId" }),
      pathParams: idParams,
      body: c.noBody(),
      summary: "Discard a draft",
      description: "Deletes a draft; requests already submitted are cancelled instead.",
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    changeState: {
      method: "PUT",
      path: `${one}/state`,
      pathParams: idParams,
      body: changeRequestStateInputSchema,
      summary: "Move a change request: In review, Approved, Rejected, Cancelled, Applied or Scheduled",
      description:
        "Moves the request through its life: In review, Approved (by someone other than its author), Rejected, Cancelled, Applied (all changes in one transaction) or Scheduled (`scheduledAt` required).",
      metadata: {
        ...unguarded("the state the body asks for decides the permission: the handler checks it"),
        requestExample: { state: "Scheduled", comment: "Apply after the release", scheduledAt: "2026-12-01T08:00:00.000Z" },
      },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    approve: {
      method: "POST",
      path: `${one}/approve`,
      pathParams: idParams,
      body: changeRequestReviewInputSchema,
      summary: "Approve (same as state Approved)",
      description:
        "Approves the request; it becomes Approved once it has the approvals the environment requires. Authors cannot approve their own requests.",
      metadata: {
        ...requires(permissions.approveChangeRequest, { project: "params.projectId" }),
        requestExample: { comment: "Looks good" },
      },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    reject: {
      method: "POST",
      path: `${one}/reject`,
      pathParams: idParams,
      body: changeRequestReviewInputSchema,
      summary: "Reject (same as state Rejected)",
      description: "Rejects the request; it can no longer be applied.",
      metadata: {
        ...requires(permissions.approveChangeRequest, { project: "params.projectId" }),
        requestExample: { comment: "Roll out to 10% first" },
      },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    cancel: {
      method: "POST",
      path: `${one}/cancel`,
      pathParams: idParams,
      body: changeRequestReviewInputSchema,
      summary: "Cancel (same as state Cancelled)",
      description: "Cancels the request (its author, or an admin).",
      metadata: {
        ...requires(permissions.createChangeRequest, { project: "params.projectId" }),
        requestExample: { comment: "No longer needed" },
      },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    apply: {
      method: "POST",
      path: `${one}/apply`,
      pathParams: idParams,
      body: changeRequestReviewInputSchema,
      summary: "Apply every change, all or nothing (same as state Applied)",
      description:
        "Applies every change of an approved request in one transaction: either all of them take effect or, on any failure, none does and the reason is recorded.",
      metadata: { ...requires(permissions.applyChangeRequest, { project: "params.projectId" }), requestExample: { comment: "Releasing" } },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    addComment: {
      method: "POST",
      path: `${one}/comments`,
      pathParams: idParams,
      body: changeRequestCommentInputSchema,
      summary: "Comment on a change request",
      description: "Adds a comment to the request's discussion.",
      metadata: {
        ...requires(permissions.read, { project: "params.projectId" }),
        requestExample: { text: "Can we start with the beta segment?" },
      },
      responses: { 201: changeRequestCommentSchema, ...errorResponses(400, 401, 403, 404) },
    },
    updateTitle: {
      method: "PUT",
      path: `${one}/title`,
      pathParams: idParams,
      body: changeRequestTitleInputSchema,
      summary: "Change the title",
      description: "Renames the request.",
      metadata: {
        ...requires(permissions.createChangeRequest, { project: "params.projectId" }),
        requestExample: { title: "Roll out the new checkout" },
      },
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
    removeChange: {
      method: "DELETE",
      path: `${one}/changes/:changeId`,
      metadata: requires(permissions.createChangeRequest, { project: "params.projectId" }),
      pathParams: idParams.extend({ changeId: z.coerce.number().int() }),
      body: c.noBody(),
      summary: "Remove one change; a reviewed request goes back to In review",
      description: "Removes one change from the request; a request that had reviews goes back to In review.",
      responses: { 200: changeRequestSchema, ...errorResponses(400, 401, 403, 404, 409) },
    },
  },
  routerOptions,
);

/**
 * Project members, as far as collaboration modes need them: in a `protected` project only members
 * submit change requests; a `private` project is hidden from non-members. Unleash's paths.
 */
export const projectAccessContract = c.router(
  {
    list: {
      method: "GET",
      path: `${project}/access`,
      metadata: requires(permissions.read, { project: "params.projectId" }),
      summary: "Members and groups of a project with their project roles",
      description: "The project's members and the project roles each has (Owner, Member), as Unleash lists them.",
      responses: {
        200: projectAccessSchema,
        ...errorResponses(401, 403, 404),
      },
    },
    add: {
      method: "POST",
      path: `${project}/access`,
      summary: "Give users a project role",
      description:
        "Gives users (and groups) project roles. In a `protected` project only members may submit change requests; a `private` project is visible to its members only.",
      metadata: {
        ...requires(permissions.updateProject, { project: "params.projectId" }),
        requestExample: { roles: [5], users: [{ id: 7 }] },
      },
      body: addProjectAccessBodySchema,
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    },
    remove: {
      method: "DELETE",
      path: `${project}/users/:userId/roles`,
      metadata: requires(permissions.updateProject, { project: "params.projectId" }),
      pathParams: z.object({ projectId: z.string(), userId: z.coerce.number().int() }),
      body: c.noBody(),
      summary: "Remove a user from the project",
      description: "Removes a user's roles in the project.",
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
    removeGroup: {
      method: "DELETE",
      path: `${project}/groups/:groupId/roles`,
      metadata: requires(permissions.updateProject, { project: "params.projectId" }),
      pathParams: z.object({ projectId: z.string(), groupId: z.coerce.number().int() }),
      body: c.noBody(),
      summary: "Remove a group from the project",
      description: "Removes a group's roles in the project; its members keep the roles they hold on their own.",
      responses: { 200: c.noBody(), ...errorResponses(401, 403, 404) },
    },
  },
  routerOptions,
);
