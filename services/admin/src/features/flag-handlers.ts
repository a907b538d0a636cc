import type { Feature } from "@vexil/contracts";
import type { FeatureDocument } from "./feature-model.js";
import type { FeatureHandlers, FeatureRouteDeps } from "./feature-handlers.js";
import { isUrlFriendly } from "./feature-naming.js";
import { featureTypeList } from "./feature-types.js";
import { ValidationError } from "@vexil/errors";

/** Creating, reading, changing and archiving one flag of a project. */
export function flagHandlers({
  features,
  projects,
}: FeatureRouteDeps): Pick<
  FeatureHandlers,
  | "listTypes"
  | "listInProject"
  | "create"
  | "get"
  | "update"
  | "patch"
  | "archive"
  | "clone"
  | "addFavorite"
  | "removeFavorite"
  | "staleOn"
  | "staleOff"
  | "validateName"
> {
  const view = (doc: FeatureDocument, userId: number): Promise<Feature> => features.toResponse(doc, { userId });
  return {
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
    validateName: async ({ body }) => {
      if (!isUrlFriendly(body.name)) throw new ValidationError(`"name" must be URL friendly. You provided "${body.name}".`);
      await features.assertNameAvailable(body.name, body.projectId);
      return { status: 200, body: undefined };
    },
  };
}
