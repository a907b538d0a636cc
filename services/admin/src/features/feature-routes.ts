import express, { type Router } from "express";
import { adminContract, type Feature } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { AccessService } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
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

  mountContract(router, adminContract.features, {
    listTypes: async ({ req }) => {
      access.assert(req, permissions.read);
      return { status: 200, body: featureTypeList() };
    },
    listInProject: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await projects.get(params.projectId);
      const docs = await features.list({ project: params.projectId, archived: false });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    create: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.createFeature, { project: params.projectId });
      return { status: 201, body: await view(await features.create(params.projectId, body, actor), actor.userId) };
    },
    get: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      return { status: 200, body: await view(await features.getInProject(params.projectId, params.featureName), actor.userId) };
    },
    update: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      return { status: 200, body: await view(await features.update(params.projectId, params.featureName, body, actor), actor.userId) };
    },
    patch: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeature, { project: params.projectId });
      return { status: 200, body: await view(await features.patch(params.projectId, params.featureName, body, actor), actor.userId) };
    },
    archive: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteFeature, { project: params.projectId });
      await features.archive(params.projectId, [params.featureName], actor);
      return { status: 202, body: undefined };
    },
    getEnvironment: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId, environment: params.environment });
      const doc = await features.getInProject(params.projectId, params.featureName);
      const environment = (await projects.environmentViews(params.projectId)).find((e) => e.name === params.environment);
      if (!environment) throw new NotFoundError(`Could not find environment ${params.environment} for feature ${params.featureName}`);
      return { status: 200, body: toFeatureEnvironmentResponse(doc, environment) };
    },
    enableInEnvironment: async ({ params, query, req }) => {
      const scope = { project: params.projectId, environment: params.environment };
      const actor = access.assert(req, permissions.updateFeatureEnvironment, scope);
      const doc = await featureStrategies.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, true, actor, {
        shouldActivateDisabledStrategies: query.shouldActivateDisabledStrategies,
      });
      return { status: 200, body: await view(doc, actor.userId) };
    },
    disableInEnvironment: async ({ params, req }) => {
      const scope = { project: params.projectId, environment: params.environment };
      const actor = access.assert(req, permissions.updateFeatureEnvironment, scope);
      const doc = await featureStrategies.setEnvironmentEnabled(params.projectId, params.featureName, params.environment, false, actor);
      return { status: 200, body: await view(doc, actor.userId) };
    },
    listStrategies: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId, environment: params.environment });
      const list = await featureStrategies.listStrategies(params.projectId, params.featureName, params.environment);
      return { status: 200, body: list.map((s) => toStrategyResponse(params.featureName, s)) };
    },
    addStrategy: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.createFeatureStrategy, { project: params.projectId, environment: params.environment });
      const strategy = await featureStrategies.addStrategy(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    setStrategySortOrder: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureStrategy, { project: params.projectId, environment: params.environment });
      await featureStrategies.setStrategySortOrder(params.projectId, params.featureName, params.environment, body, actor);
      return { status: 200, body: undefined };
    },
    getStrategy: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId, environment: params.environment });
      const strategy = await featureStrategies.getStrategy(params.projectId, params.featureName, params.environment, params.strategyId);
      return { status: 200, body: toStrategyResponse(params.featureName, strategy) };
    },
    updateStrategy: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureStrategy, { project: params.projectId, environment: params.environment });
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
    patchStrategy: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureStrategy, { project: params.projectId, environment: params.environment });
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
    deleteStrategy: async ({ params, req }) => {
      const actor = access.assert(req, permissions.deleteFeatureStrategy, { project: params.projectId, environment: params.environment });
      await featureStrategies.deleteStrategy(params.projectId, params.featureName, params.environment, params.strategyId, actor);
      return { status: 200, body: undefined };
    },
    getEnvironmentVariants: async ({ params, req }) => {
      access.assert(req, permissions.read, { project: params.projectId, environment: params.environment });
      return { status: 200, body: await featureStrategies.getVariants(params.projectId, params.featureName, params.environment) };
    },
    setEnvironmentVariants: async ({ params, body, req }) => {
      const scope = { project: params.projectId, environment: params.environment };
      const actor = access.assert(req, permissions.updateFeatureEnvironmentVariants, scope);
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, [params.environment], body, actor),
      };
    },
    patchEnvironmentVariants: async ({ params, body, req }) => {
      const scope = { project: params.projectId, environment: params.environment };
      const actor = access.assert(req, permissions.updateFeatureEnvironmentVariants, scope);
      return {
        status: 200,
        body: await featureStrategies.patchVariants(params.projectId, params.featureName, params.environment, body, actor),
      };
    },
    setVariantsBatch: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureEnvironmentVariants, { project: params.projectId });
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
    postVariantsBatch: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.updateFeatureEnvironmentVariants, { project: params.projectId });
      return {
        status: 200,
        body: await featureStrategies.setVariants(params.projectId, params.featureName, body.environments, body.variants, actor),
      };
    },
    clone: async ({ params, body, req }) => {
      const actor = access.assert(req, permissions.createFeature, { project: params.projectId });
      const doc = await features.clone(params.projectId, params.featureName, body.name, body.replaceGroupId, actor);
      return { status: 201, body: await view(doc, actor.userId) };
    },
    addFavorite: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await features.setFavorite(params.projectId, params.featureName, true, actor);
      return { status: 200, body: undefined };
    },
    removeFavorite: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await features.setFavorite(params.projectId, params.featureName, false, actor);
      return { status: 200, body: undefined };
    },
    staleOn: async ({ params, req }) => {
      const doc = await features.get(params.featureName);
      const actor = access.assert(req, permissions.updateFeature, { project: doc.project });
      return { status: 200, body: await view(await features.setStale(params.featureName, true, actor), actor.userId) };
    },
    staleOff: async ({ params, req }) => {
      const doc = await features.get(params.featureName);
      const actor = access.assert(req, permissions.updateFeature, { project: doc.project });
      return { status: 200, body: await view(await features.setStale(params.featureName, false, actor), actor.userId) };
    },
    listAll: async ({ req }) => {
      const actor = access.assert(req, permissions.read);
      return {
        status: 200,
        body: { version: 1 as const, features: await features.toResponses(await features.listAll(), { userId: actor.userId }) },
      };
    },
    search: async ({ query, req }) => {
      const actor = access.assert(req, permissions.read);
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
    validateName: async ({ body, req }) => {
      access.assert(req, permissions.read);
      if (!isUrlFriendly(body.name)) throw new ValidationError(`"name" must be URL friendly. You provided "${body.name}".`);
      await features.assertNameAvailable(body.name, body.projectId);
      return { status: 200, body: undefined };
    },
    listArchived: async ({ req }) => {
      const actor = access.assert(req, permissions.read);
      const docs = await features.list({ archived: true });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    listArchivedInProject: async ({ params, req }) => {
      const actor = access.assert(req, permissions.read, { project: params.projectId });
      await projects.get(params.projectId);
      const docs = await features.list({ project: params.projectId, archived: true });
      return { status: 200, body: { version: 1 as const, features: await features.toResponses(docs, { userId: actor.userId }) } };
    },
    deleteArchived: async ({ params, req }) => {
      const doc = await features.get(params.featureName);
      const actor = access.assert(req, permissions.deleteFeature, { project: doc.project });
      await features.deleteArchived(undefined, [params.featureName], actor);
      return { status: 200, body: undefined };
    },
    reviveArchived: async ({ params, req }) => {
      const doc = await features.get(params.featureName);
      const actor = access.assert(req, permissions.updateFeature, { project: doc.project });
      await features.revive(undefined, [params.featureName], actor);
      return { status: 200, body: undefined };
    },
  });
  return router;
}
