import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import { featureStrategyHandlers } from "./feature-strategy-handlers.js";
import type { FeatureRouteDeps } from "./feature-handlers.js";
import { flagEnvironmentHandlers } from "./flag-environment-handlers.js";
import { flagHandlers } from "./flag-handlers.js";
import { flagListingHandlers } from "./flag-listing-handlers.js";

export function featureRoutes({ access, ...deps }: FeatureRouteDeps & { access: AccessService }): Router {
  const router = express.Router();
  // Routes named by flag alone are scoped by the flag's project.
  const guard = { access, projectOfFlag: async (featureName: string) => (await deps.features.get(featureName)).project };
  mountGuardedContract(router, adminContract.features, guard, {
    ...flagHandlers(deps),
    ...flagListingHandlers(deps),
    ...flagEnvironmentHandlers(deps),
    ...featureStrategyHandlers(deps),
  });
  return router;
}
