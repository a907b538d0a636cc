import type { UnitOfWork } from "../events/unit-of-work.js";
import { changeActions, type ActionPorts } from "../change-requests/change-request-actions.js";
import { ChangeRequestConfig } from "../change-requests/change-request-config.js";
import { ChangeRequestReview } from "../change-requests/change-request-review.js";
import { ChangeRequestService } from "../change-requests/change-request-service.js";
import { ChangeRequestViewer } from "../change-requests/change-request-view.js";
import { ProjectMemberService } from "../project-members/project-member-service.js";
import type { FlagModel } from "./flags.js";
import type { AdminStores } from "./stores.js";

/**
 * Project members and change requests, on top of the flag model: change requests propose and apply
 * through the same services a direct change uses, and guard the environments that require them.
 */
export function createChangeRequests({
  stores,
  flags,
  userExists,
  groupExists,
  unitOfWork,
  clock,
}: {
  stores: AdminStores;
  flags: FlagModel;
  userExists: (id: number) => Promise<boolean>;
  groupExists: (id: number) => Promise<boolean>;
  unitOfWork: UnitOfWork;
  clock: () => Date;
}) {
  const projectMembers = new ProjectMemberService({
    members: stores.projectMembers,
    projects: flags.projectService,
    userExists,
    groupExists,
    unitOfWork,
    clock,
  });
  const ports: ActionPorts = {
    features: flags.featureService,
    featureStrategies: flags.flagEnvironments,
    segments: flags.segmentService,
    dependencies: flags.dependencyService,
    validateConstraints: flags.validateConstraints,
  };
  const actions = changeActions(ports);
  const viewer = new ChangeRequestViewer({ ...ports, projects: flags.projectService, actions });
  const config = new ChangeRequestConfig({ store: stores.changeRequests, projects: flags.projectService, unitOfWork });
  const changeRequests = new ChangeRequestService({
    store: stores.changeRequests,
    config,
    ports,
    actions,
    viewer,
    projects: flags.projectService,
    unitOfWork,
    clock,
  });
  const review = new ChangeRequestReview({ store: stores.changeRequests, config, actions, viewer, unitOfWork, clock });
  flags.featureService.addChangeGuard(config.guard);
  return { projectMembers, config, changeRequests, review };
}
export type ChangeRequests = ReturnType<typeof createChangeRequests>;
