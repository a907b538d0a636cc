import type { Feature } from "@vexil/contracts";
import type { FeatureDocument } from "./feature-model.js";
import type { FeatureHandlers, FeatureRouteDeps } from "./feature-handlers.js";
import { toFeatureEnvironmentResponse } from "./feature-response.js";
import { NotFoundError } from "@vexil/errors";

/** A flag in one environment: switching it on and off, and its variants. */
export function flagEnvironmentHandlers({
  features,
  flagEnvironments,
  projects,
}: FeatureRouteDeps): Pick<
  FeatureHandlers,
  | "getEnvironment"
  | "enableInEnvironment"
  | "disableInEnvironment"
  | "getEnvironmentVariants"
  | "setEnvironmentVariants"
  | "patchEnvironmentVariants"
  | "setVariantsBatch"
  | "postVariantsBatch"
> {
  const view = (doc: FeatureDocument, userId: number): Promise<Feature> => features.toResponse(doc, { userId });
  return {
    getEnvironment: async ({ params }) => {
      const doc = await features.getInProject(params.projectId, params.featureName);
      const environment = (await projects.environmentViews(params.projectId)).find((e) => e.name === params.environment);
      if (!environment) throw new NotFoundError(`Could not find environment ${params.environment} for feature ${params.featureName}`);
      return { status: 200, body: toFeatureEnvironmentResponse(doc, environment) };
    },
    enableInEnvironment: async ({ params, query, actor }) => {
      const doc = await flagEnvironments.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, true, actor, {
        shouldActivateDisabledStrategies: query.shouldActivateDisabledStrategies,
      });
      return { status: 200, body: await view(doc, actor.userId) };
    },
    disableInEnvironment: async ({ params, actor }) => {
      const doc = await flagEnvironments.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, false, actor);
      return { status: 200, body: await view(doc, actor.userId) };
    },
    getEnvironmentVariants: async ({ params }) => {
      return { status: 200, body: await flagEnvironments.getVariants(params.projectId, params.featureName, params.environment) };
    },
    setEnvironmentVariants: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await flagEnvironments.setVariants(params.projectId, params.featureName, [params.environment], body, actor),
      };
    },
    patchEnvironmentVariants: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await flagEnvironments.patchVariants(params.projectId, params.featureName, params.environment, body, actor),
      };
    },
    setVariantsBatch: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await flagEnvironments.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
    postVariantsBatch: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await flagEnvironments.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
  };
}
