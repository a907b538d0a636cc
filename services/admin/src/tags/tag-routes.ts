import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { FeatureReader } from "../features/strategy-usage.js";
import type { TagService } from "./tag-service.js";

export function tagRoutes({ tags, features, access }: { tags: TagService; features: FeatureReader; access: AccessService }): Router {
  const router = express.Router();
  /** Tagging a flag needs UPDATE_FEATURE in its project. */
  const projectOf = async (featureName: string) => (await features.find(featureName))?.project;

  mountGuardedContract(
    router,
    adminContract.tags,
    { access, projectOfFlag: projectOf },
    {
      create: async ({ body, res, actor }) => {
        const tag = await tags.create(body, actor);
        res.setHeader("location", `tags/${encodeURIComponent(tag.type)}/${encodeURIComponent(tag.value)}`);
        return { status: 201, body: { version: 1, tag } };
      },
      list: async () => {
        return { status: 200, body: { version: 1, tags: await tags.list() } };
      },
      listByType: async ({ params }) => {
        return { status: 200, body: { version: 1, tags: await tags.listByType(params.type) } };
      },
      get: async ({ params }) => {
        return { status: 200, body: { version: 1, tag: await tags.get(params.type, params.value) } };
      },
      delete: async ({ params, actor }) => {
        await tags.delete(params.type, params.value, actor);
        return { status: 200, body: undefined };
      },
      listTypes: async () => {
        return { status: 200, body: { version: 1, tagTypes: await tags.listTypes() } };
      },
      createType: async ({ body, res, actor }) => {
        const type = await tags.createType(body, actor);
        res.setHeader("location", `tag-types/${encodeURIComponent(type.name)}`);
        return { status: 201, body: type };
      },
      validateType: async ({ body }) => {
        await tags.validateTypeName(body.name);
        return { status: 200, body: { valid: true as const, tagType: { name: body.name } } };
      },
      getType: async ({ params }) => {
        return { status: 200, body: { version: 1, tagType: await tags.getType(params.name) } };
      },
      updateType: async ({ params, body, actor }) => {
        await tags.updateType(params.name, body, actor);
        return { status: 200, body: undefined };
      },
      deleteType: async ({ params, actor }) => {
        await tags.deleteType(params.name, actor);
        return { status: 200, body: undefined };
      },
      listFeatureTags: async ({ params }) => {
        return { status: 200, body: { version: 1, tags: await tags.featureTags(params.featureName) } };
      },
      addFeatureTag: async ({ params, body, actor }) => {
        return { status: 201, body: await tags.addFeatureTag(params.featureName, body, actor) };
      },
      updateFeatureTags: async ({ params, body, actor }) => {
        return { status: 200, body: { version: 1, tags: await tags.updateFeatureTags(params.featureName, body, actor) } };
      },
      removeFeatureTag: async ({ params, actor }) => {
        await tags.removeFeatureTag(params.featureName, { type: params.type, value: params.value }, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
