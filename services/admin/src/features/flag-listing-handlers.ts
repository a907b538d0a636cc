import type { FeatureHandlers, FeatureRouteDeps } from "./feature-handlers.js";
import { parseTagFilter, passesTagFilter } from "./tag-filter.js";

/** `IS:value` / `IS_ANY_OF:a,b` (Unleash's search operators) or a plain value → the accepted values. */
function searchValues(filter: string | undefined): string[] | undefined {
  if (!filter) return undefined;
  const match = /^(IS|IS_ANY_OF):(.*)$/.exec(filter);
  return (match ? (match[2] ?? "") : filter).split(",").filter(Boolean);
}

/** Flags across projects: the full list, search, and the archive. */
export function flagListingHandlers({
  features,
  projects,
}: FeatureRouteDeps): Pick<
  FeatureHandlers,
  "listAll" | "search" | "listArchived" | "listArchivedInProject" | "deleteArchived" | "reviveArchived"
> {
  return {
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
  };
}
