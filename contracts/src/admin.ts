import { c, routerOptions } from "./common.js";
import { addonsContract } from "./admin/addons.js";
import { apiTokensContract } from "./admin/api-tokens.js";
import { changeRequestsContract } from "./admin/change-requests.js";
import { contextContract } from "./admin/context.js";
import { eventsContract } from "./admin/events.js";
import { featuresContract } from "./admin/features.js";
import { featureLinksContract } from "./admin/feature-links.js";
import { inviteLinksContract } from "./admin/invite-links.js";
import { projectsContract } from "./admin/projects.js";
import { samlContract } from "./admin/saml.js";
import { actionsContract } from "./admin/actions.js";
import { serviceAccountsContract } from "./admin/service-accounts.js";
import { signalEndpointsContract } from "./admin/signals.js";
import { segmentsContract } from "./admin/segments.js";
import { strategiesContract } from "./admin/strategies.js";
import { tagsContract } from "./admin/tags.js";
import { uiConfigContract } from "./admin/ui-config.js";
import { usersContract } from "./admin/users.js";

/** `/api/admin/*`: one router per slice, each in `admin/<slice>.ts`. */
export const adminContract = c.router(
  {
    projects: projectsContract,
    features: featuresContract,
    segments: segmentsContract,
    strategies: strategiesContract,
    tags: tagsContract,
    context: contextContract,
    featureLinks: featureLinksContract,
    uiConfig: uiConfigContract,
    addons: addonsContract,
    changeRequests: changeRequestsContract,
    inviteLinks: inviteLinksContract,
    apiTokens: apiTokensContract,
    saml: samlContract,
    users: usersContract,
    events: eventsContract,
    signalEndpoints: signalEndpointsContract,
    serviceAccounts: serviceAccountsContract,
    actions: actionsContract,
  },
  { ...routerOptions, pathPrefix: "/api/admin" },
);
export type AdminContract = typeof adminContract;
