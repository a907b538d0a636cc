import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { exportQuerySchema, exportResultSchema, importTogglesSchema, importValidationSchema, type ExportResult } from "../schemas/index.js";

const exampleExport: ExportResult = {
  features: [
    {
      name: "new-checkout",
      description: "The one-page checkout",
      type: "release",
      project: "default",
      stale: false,
      impressionData: false,
      archived: false,
    },
  ],
  featureStrategies: [
    {
      name: "flexibleRollout",
      featureName: "new-checkout",
      title: "Half of the gold tier",
      parameters: { rollout: "50", stickiness: "default", groupId: "new-checkout" },
      constraints: [{ contextName: "tier", operator: "IN", values: ["gold"], caseInsensitive: false, inverted: false }],
      variants: [],
      disabled: false,
      segments: [1],
      sortOrder: 0,
    },
  ],
  featureEnvironments: [{ name: "new-checkout", featureName: "new-checkout", environment: "development", enabled: true, variants: [] }],
  contextFields: [
    { name: "tier", description: "Pricing tier", stickiness: false, sortOrder: 10, legalValues: [{ value: "gold" }, { value: "silver" }] },
  ],
  featureTags: [{ featureName: "new-checkout", tagType: "simple", tagValue: "checkout" }],
  segments: [{ id: 1, name: "beta-testers" }],
  tagTypes: [{ name: "simple", description: "Used to simplify filtering of features", icon: "#" }],
  dependencies: [],
};

/** Unleash's feature export/import (`/api/admin/features-batch/*`): an export from either imports into the other. */
export const exportImportContract = c.router(
  {
    export: {
      method: "POST",
      path: "/features-batch/export",
      summary: "Export flags from an environment",
      description:
        "Exports the flags chosen by `features` (an empty list means all), `tag` or `project`, with their strategies, variants, " +
        "on/off state in `environment`, tags, the segments and context fields their strategies use, and their dependencies, in " +
        "Unleash's export format. Segments are exported by id and name; an import maps them by name.",
      body: exportQuerySchema,
      metadata: {
        ...requires(permissions.read, { project: "body.project" }),
        requestExample: { environment: "development", project: "default" },
      },
      responses: { 200: exportResultSchema, ...errorResponses(400, 401, 403, 404, 415) },
    },
    validate: {
      method: "POST",
      path: "/features-batch/validate",
      summary: "Check an import before running it",
      description:
        "Dry run of an import: lists the `errors` that would refuse it (undefined strategies, segments missing in the target, " +
        "flags owned by another project, context fields whose legal values differ, missing dependency parents, naming pattern " +
        "or flag limit violations) and the `warnings` (flags to be overwritten, archived flags skipped). Nothing is written.",
      body: importTogglesSchema,
      metadata: {
        ...requires(permissions.createFeature, { project: "body.project" }),
        requestExample: { project: "default", environment: "production", data: exampleExport },
      },
      responses: { 200: importValidationSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
    import: {
      method: "POST",
      path: "/features-batch/import",
      summary: "Import flags into a project and environment",
      description:
        "Imports an export into `project`: creates or updates the flags, their tags, tag types and context fields, and " +
        "replaces their strategies, variants and on/off state in `environment`. All or nothing: any error (the same ones " +
        "`/validate` lists) answers 400 and writes nothing. In an environment with change requests enabled, the strategy, " +
        "variant and on/off changes go into a change request draft instead of being applied.",
      body: importTogglesSchema,
      metadata: {
        ...requires(permissions.createFeature, { project: "body.project" }),
        requestExample: { project: "default", environment: "production", data: exampleExport },
      },
      responses: { 200: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  },
  routerOptions,
);
