import type { FeatureHandlers, FeatureRouteDeps } from "./feature-handlers.js";
import { toStrategyResponse } from "./feature-response.js";

/** A flag's strategies in one environment. */
export function featureStrategyHandlers({
  flagEnvironments,
}: FeatureRouteDeps): Pick<
  FeatureHandlers,
  "listStrategies" | "addStrategy" | "setStrategySortOrder" | "getStrategy" | "updateStrategy" | "patchStrategy" | "deleteStrategy"
> {
  return {
    listStrategies: async ({ params }) => {
      const list = await flagEnvironments.listStrategies(params.projectId, params.featureName, params.environment);
      return { status: 200, body: list.map((s) => toStrategyResponse(params.featureName, s)) };
    },
    addStrategy: async ({ params, body, actor }) => {
      const strategy = await flagEnvironments.addStrategy(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    setStrategySortOrder: async ({ params, body, actor }) => {
      await flagEnvironments.setStrategySortOrder(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: undefined };
    },
    getStrategy: async ({ params }) => {
      const strategy = await flagEnvironments.getStrategy(params.projectId, params.featureName, params.environment, params.strategyId);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    updateStrategy: async ({ params, body, actor }) => {
      const strategy = await flagEnvironments.updateStrategy(
        params.projectId,
        params.featureName,
        params.environment,
        params.strategyId,
        body,
        actor,
      );
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    patchStrategy: async ({ params, body, actor }) => {
      const strategy = await flagEnvironments.patchStrategy(
        params.projectId,
        params.featureName,
        params.environment,
        params.strategyId,
        body,
        actor,
      );
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    deleteStrategy: async ({ params, actor }) => {
      await flagEnvironments.deleteStrategy(params.projectId, params.featureName, params.environment, params.strategyId, actor);
      return { status: 200, body: undefined };
    },
  };
}
