import { c, routerOptions } from "./common.js";
import { addonsContract } from "./admin/addons.js";
import { apiTokensContract } from "./admin/api-tokens.js";
import { applicationsContract } from "./admin/applications.js";
import { usageMetricsContract } from "./admin/usage-metrics.js";
import { changeRequestsContract, projectAccessContract } from "./admin/change-requests.js";
import { environmentsContract } from "./admin/environments.js";
import { contextContract } from "./admin/context.js";
import { eventsContract } from "./admin/events.js";
import { exportImportContract } from "./admin/export-import.js";
import { featuresContract } from "./admin/features.js";
import { dependenciesAndLifecycleContract } from "./admin/dependencies-and-lifecycle.js";
import { flagLinksContract } from "./admin/flag-links.js";
import { groupsContract } from "./admin/groups.js";
import { inviteLinksContract } from "./admin/invite-links.js";
import { playgroundContract } from "./admin/playground.js";
import { projectsContract } from "./admin/projects.js";
import { samlContract } from "./admin/saml.js";
import { oidcContract, passwordAuthContract } from "./admin/oidc.js";
import { actionsContract } from "./admin/actions.js";
import { serviceAccountsContract } from "./admin/service-accounts.js";
import { signalEndpointsContract } from "./admin/signals.js";
import { segmentsContract } from "./admin/segments.js";
import { strategiesContract } from "./admin/strategies.js";
import { tagsContract } from "./admin/tags.js";
import { uiConfigContract } from "./admin/ui-config.js";
import { usersContract } from "./admin/users.js";

/** `/api/admin/*`: one router per slice, each in `admin/<slice>.ts`. */
type AdminRoutes = {
  projects: typeof projectsContract;
  features: typeof featuresContract;
  environments: typeof environmentsContract;
  segments: typeof segmentsContract;
  strategies: typeof strategiesContract;
  tags: typeof tagsContract;
  context: typeof contextContract;
  dependenciesAndLifecycle: typeof dependenciesAndLifecycleContract;
  flagLinks: typeof flagLinksContract;
  uiConfig: typeof uiConfigContract;
  addons: typeof addonsContract;
  changeRequests: typeof changeRequestsContract;
  projectAccess: typeof projectAccessContract;
  inviteLinks: typeof inviteLinksContract;
  apiTokens: typeof apiTokensContract;
  saml: typeof samlContract;
  oidc: typeof oidcContract;
  passwordAuth: typeof passwordAuthContract;
  users: typeof usersContract;
  groups: typeof groupsContract;
  events: typeof eventsContract;
  signalEndpoints: typeof signalEndpointsContract;
  serviceAccounts: typeof serviceAccountsContract;
  actions: typeof actionsContract;
  applications: typeof applicationsContract;
  usageMetrics: typeof usageMetricsContract;
  exportImport: typeof exportImportContract;
  playground: typeof playgroundContract;
};
// Spelled out so declarations name each slice instead of expanding every route (TS7056).
const adminRoutes: AdminRoutes = {
  projects: projectsContract,
  features: featuresContract,
  environments: environmentsContract,
  segments: segmentsContract,
  strategies: strategiesContract,
  tags: tagsContract,
  context: contextContract,
  dependenciesAndLifecycle: dependenciesAndLifecycleContract,
  flagLinks: flagLinksContract,
  uiConfig: uiConfigContract,
  addons: addonsContract,
  changeRequests: changeRequestsContract,
  projectAccess: projectAccessContract,
  inviteLinks: inviteLinksContract,
  apiTokens: apiTokensContract,
  saml: samlContract,
  oidc: oidcContract,
  passwordAuth: passwordAuthContract,
  users: usersContract,
  groups: groupsContract,
  events: eventsContract,
  signalEndpoints: signalEndpointsContract,
  serviceAccounts: serviceAccountsContract,
  actions: actionsContract,
  applications: applicationsContract,
  usageMetrics: usageMetricsContract,
  exportImport: exportImportContract,
  playground: playgroundContract,
};
const adminOptions = { ...routerOptions, pathPrefix: "/api/admin" } as const;
export type AdminContract = ReturnType<typeof c.router<AdminRoutes, "/api/admin", typeof adminOptions>>;
export const adminContract: AdminContract = c.router(adminRoutes, adminOptions);
