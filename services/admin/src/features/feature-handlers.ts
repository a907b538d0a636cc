import type { adminContract } from "@vexil/contracts";
import type { GuardedImplementation } from "../access/guarded-contract.js";
import type { FeatureService } from "./feature-service.js";
import type { FlagEnvironmentService } from "./flag-environment-service.js";
import type { FlagProjects } from "./flag-projects.js";

/** The handlers of `adminContract.features`, written per concern and mounted together by featureRoutes. */
export type FeatureHandlers = GuardedImplementation<typeof adminContract.features>;

export interface FeatureRouteDeps {
  features: FeatureService;
  flagEnvironments: FlagEnvironmentService;
  projects: FlagProjects;
}
