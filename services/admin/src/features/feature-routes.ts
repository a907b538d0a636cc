import express, { type Router } from "express";
import { adminContract, type Feature } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import { isUrlFriendly } from "./feature-naming.js";
import type { FeatureDocument } from "./feature-model.js";
import { toFeatureEnvironmentResponse, toStrategyResponse } from "./feature-response.js";
import type { FeatureService } from "./feature-service.js";
import type { FeatureStrategyService } from "./feature-strategy-service.js";
import { featureTypeList } from "./feature-types.js";
import { parseTagFilter, passesTagFilter } from "./tag-filter.js";
import type { FlagProjects } from "./flag-projects.js";
import { NotFoundError, ValidationError } from "@vexil/errors";

/** `IS:value` / `IS_ANY_OF:a,b` (Unleash's search operators) or a plain value → the accepted values. */
function searchValues(filter: string | undefined): string[] | undefined {
  if (!filter) return undefined;
  const match = /^(IS|IS_ANY_OF):(.*)$/.exec(filter);
  return (match ? (match[2] ?? "") : filter).split(",").filter(Boolean);
}

export function featureRoutes({
  features,
  featureStrategies,
  projects,
  access,
}: {
  features: FeatureService;
  featureStrategies: FeatureStrategyService;
  projects: FlagProjects;
  access: AccessService;
}): Router {
  const router = express.Router();
  const view = (doc: FeatureDocument, userId: number): Promise<Feature> => features.toResponse(doc, { userId });

  // Routes named by flag alone are scoped by the flag's project.
  const guard = { access, projectOfFlag: async (featureName: string) => (await features.get(featureName)).project };
  mountGuardedContract(router, adminContract.features, guard, {
    listTypes: async () => {
      return { status: 200, body: featureTypeList() };
    },
    listInProject: async ({ params, actor }) => {
      await projects.get(params.projectId);
      const docs = await features.list({ project: params.projectId, archived: false });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    create: async ({ params, body, actor }) => {
      return { status: 201, body: await view(await features.create(params.projectId, body, actor), actor.userId) };
    },
    get: async ({ params, actor }) => {
      return { status: 200, body: await view(await features.getInProject(params.projectId, params.featureName), actor.userId) };
    },
    update: async ({ params, body, actor }) => {
      return { status: 200, body: await view(await features.update(params.projectId, params.featureName, body, actor), actor.userId) };
    },
    patch: async ({ params, body, actor }) => {
      return { status: 200, body: await view(await features.patch(params.projectId, params.featureName, body, actor), actor.userId) };
    },
    archive: async ({ params, actor }) => {
      await features.archive(params.projectId, [params.featureName], actor);
      return { status: 202, body: undefined };
    },
    getEnvironment: async ({ params }) => {
      const doc = await features.getInProject(params.projectId, params.featureName);
      const environment = (await projects.environmentViews(params.projectId)).find((e) => e.name === params.environment);
      if (!environment) throw new NotFoundError(`Could not find environment ${params.environment} for feature ${params.featureName}`);
      return { status: 200, body: toFeatureEnvironmentResponse(doc, environment) };
    },
    enableInEnvironment: async ({ params, query, actor }) => {
      const doc = await featureStrategies.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, true, actor, {
        shouldActivateDisabledStrategies: query.shouldActivateDisabledStrategies,
      });
      return { status: 200, body: await view(doc, actor.userId) };
    },
    disableInEnvironment: async ({ params, actor }) => {
      const doc = await featureStrategies.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, false, actor);
      return { status: 200, body: await view(doc, actor.userId) };
    },
    listStrategies: async ({ params }) => {
      const list = await featureStrategies.listStrategies(params.projectId, params.featureName, params.environment);
      return { status: 200, body: list.map((s) => toStrategyResponse(params.featureName, s)) };
    },
    addStrategy: async ({ params, body, actor }) => {
      const strategy = await featureStrategies.addStrategy(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    setStrategySortOrder: async ({ params, body, actor }) => {
      await featureStrategies.setStrategySortOrder(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: undefined };
    },
    getStrategy: async ({ params }) => {
      const strategy = await featureStrategies.getStrategy(params.projectId, params.featureName, params.environment, params.strategyId);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    updateStrategy: async ({ params, body, actor }) => {
      const strategy = await featureStrategies.updateStrategy(
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
      const strategy = await featureStrategies.patchStrategy(
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
      await featureStrategies.deleteStrategy(params.projectId, params.featureName, params.environment, params.strategyId, actor);
      return { status: 200, body: undefined };
    },
    getEnvironmentVariants: async ({ params }) => {
      return { status: 200, body: await featureStrategies.getVariants(params.projectId, params.featureName, params.environment) };
    },
    setEnvironmentVariants: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, [params.environment], body, actor),
      };
    },
    patchEnvironmentVariants: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await featureStrategies.patchVariants(params.projectId, params.featureName, params.environment, body, actor),
      };
    },
    setVariantsBatch: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
    postVariantsBatch: async ({ params, body, actor }) => {
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
    clone: async ({ params, body, actor }) => {
      const doc = await features.clone(params.projectId, params.featureName, body.name, body.replaceGroupId, actor);
      return { status: 201, body: await view(doc, actor.userId) };
    },
    addFavorite: async ({ params, actor }) => {
      await features.setFavorite(params.projectId, params.featureName, true, actor);
      return { status: 200, body: undefined };
    },
    removeFavorite: async ({ params, actor }) => {
      await features.setFavorite(params.projectId, params.featureName, false, actor);
      return { status: 200, body: undefined };
    },
    staleOn: async ({ params, actor }) => {
      return { status: 200, body: await view(await features.setStale(params.featureName, true, actor), actor.userId) };
    },
    staleOff: async ({ params, actor }) => {
      return { status: 200, body: await view(await features.setStale(params.featureName, false, actor), actor.userId) };
    },
    listAll: async ({ actor }) => {
      return {
        status: 200,
        body: { version: 1 as const, features: await features.toResponses(await features.listAll(), { userId: actor.userId }) },
      };
    },
    search: async ({ query, actor }) => {
      const states = searchValues(query.state);
      const tagFilter = query.tag === undefined ? undefined : parseTagFilter(query.tag);
      const tagged = tagFilter && (await features.flagsTagged(tagFilter.tags));
      // Flags without any of the tags pass the filter or not all alike: name the tagged ones that differ.
      const untaggedPass = tagFilter && passesTagFilter(tagFilter, undefined);
      const taggedOther =
        tagFilter &&
        [...(tagged ?? [])].filter(([, carried]) => passesTagFilter(tagFilter, carried) !== untaggedPass).map(([name]) => name);
      const page = await features.search(
        {
          projects: searchValues(query.project),
          types: searchValues(query.type),
          states: states?.filter((state) => state === "stale" || state === "active"),
          text: query.query || undefined,
          ...(taggedOther ? (untaggedPass ? { exceptNames: taggedOther } : { onlyNames: taggedOther }) : {}),
        },
        { offset: query.offset ?? 0, limit: query.limit ?? 50 },
      );
      return { status: 200, body: { features: await features.toResponses(page.docs, { userId: actor.userId }), total: page.total } };
    },
    validateName: async ({ body }) => {
      if (!isUrlFriendly(body.name)) throw new ValidationError(`"name" must be URL friendly. You provided "${body.name}".`);
      await features.assertNameAvailable(body.name, body.projectId);
      return { status: 200, body: undefined };
    },
    listArchived: async ({ actor }) => {
      const docs = await features.list({ archived: true });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    listArchivedInProject: async ({ params, actor }) => {
      await projects.get(params.projectId);
      const docs = await features.list({ project: params.projectId, archived: true });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    deleteArchived: async ({ params, actor }) => {
      await features.deleteArchived(undefined, [params.featureName], actor);
      return { status: 200, body: undefined };
    },
    reviveArchived: async ({ params, actor }) => {
      await features.revive(undefined, [params.featureName], actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
