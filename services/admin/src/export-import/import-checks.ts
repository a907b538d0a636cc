import {
  featureTypeLifetimes,
  featureTypeNames,
  type ContextField,
  type ImportToggles,
  type ImportValidation,
  type ImportValidationItem,
  type Segment,
} from "@vexil/contracts";
import { assertMatchesNaming } from "../features/feature-naming.js";
import type { FeatureDocument } from "../features/feature-model.js";
import type { FeatureNamingDocument } from "../projects/project-store.js";

/** What the target installation holds that an import is checked against. */
export interface ImportTarget {
  project: { _id: string; featureLimit: number | null; featureNaming: FeatureNamingDocument | null } | null;
  projectEnvironments: string[];
  /** Every flag named in the import that already exists, live or archived. */
  existing: Map<string, FeatureDocument>;
  liveInProject: number;
  strategies: { name: string; editable: boolean }[];
  contextFields: ContextField[];
  segments: Segment[];
}

/**
 * An import with the flags archived in the target left out (as Unleash does: they are reported,
 * not revived), and the segment ids of the source mapped to the target's segments of the same name.
 */
export interface ImportPlan {
  data: ImportToggles["data"];
  archived: string[];
  /** Source segment id → target segment id; absent when the target has no segment of that name. */
  segmentIds: Map<number, number>;
}

const item = (message: string, affectedItems: string[]): ImportValidationItem => ({ message, affectedItems });
const unique = (values: string[]) => [...new Set(values)];

export function planImport(input: ImportToggles, target: ImportTarget): ImportPlan {
  const archived = input.data.features.filter((f) => target.existing.get(f.name)?.archived).map((f) => f.name);
  const skip = new Set(archived);
  const keep = <T>(list: T[] | undefined, name: (entry: T) => string | undefined) =>
    (list ?? []).filter((entry) => !skip.has(name(entry) ?? ""));
  const usable = target.segments.filter((s) => s.project === null || s.project === undefined || s.project === input.project);
  const segmentIds = new Map<number, number>();
  for (const segment of input.data.segments ?? []) {
    const match = usable.find((s) => s.name === segment.name);
    if (match) segmentIds.set(segment.id, match.id);
  }
  return {
    archived,
    segmentIds,
    data: {
      ...input.data,
      features: keep(input.data.features, (f) => f.name),
      featureStrategies: keep(input.data.featureStrategies, (s) => s.featureName),
      featureEnvironments: keep(input.data.featureEnvironments, (e) => e.featureName ?? e.name),
      featureTags: keep(input.data.featureTags, (t) => t.featureName),
      dependencies: keep(input.data.dependencies, (d) => d.feature),
    },
  };
}

/** Unleash's validation messages, plus the checks Vexil's stricter model needs (one parent, known types). */
export function checkImport(input: ImportToggles, plan: ImportPlan, target: ImportTarget): ImportValidation {
  const { data } = plan;
  const errors: ImportValidationItem[] = [];
  const warnings: ImportValidationItem[] = [];
  const names = data.features.map((f) => f.name);
  const imported = new Set(names);

  if (!target.project) errors.push(item(`Project ${input.project} does not exist.`, [input.project]));
  else if (!target.projectEnvironments.includes(input.environment))
    errors.push(item(`Environment ${input.environment} is not enabled in project ${input.project}.`, [input.environment]));

  const known = new Set(target.strategies.map((s) => s.name));
  const undefinedStrategies = unique(data.featureStrategies.map((s) => s.name).filter((name) => !known.has(name)));
  if (undefinedStrategies.length > 0)
    errors.push(item("We detected the following custom strategy that needs to be created first:", undefinedStrategies));

  const conflictingFields = (data.contextFields ?? []).filter((field) => {
    const existing = target.contextFields.find((f) => f.name === field.name);
    return existing && !(field.legalValues ?? []).every((v) => existing.legalValues.some((e) => e.value === v.value));
  });
  if (conflictingFields.length > 0)
    errors.push(
      item(
        "We detected the following context fields that do not have matching legal values with the imported ones:",
        conflictingFields.map((f) => f.name),
      ),
    );

  const elsewhere = names.filter((name) => {
    const existing = target.existing.get(name);
    return existing && !existing.archived && existing.project !== input.project;
  });
  if (elsewhere.length > 0)
    errors.push(
      item(
        `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${input.project}:`,
        elsewhere.map((name) => `${name} (in project ${target.existing.get(name)?.project})`),
      ),
    );

  const duplicates = unique(names.filter((name, i) => names.indexOf(name) !== i));
  if (duplicates.length > 0) errors.push(item("We detected the following features are duplicate in your import data:", duplicates));

  if (target.project?.featureNaming) {
    const naming = target.project.featureNaming;
    const mismatched = names.filter((name) => {
      try {
        assertMatchesNaming(name, naming);
        return false;
      } catch {
        return true;
      }
    });
    if (mismatched.length > 0)
      errors.push(
        item(
          `Features imported into this project must match the project's feature naming pattern: "${naming.pattern}". The following features do not match the pattern:`,
          mismatched.sort(),
        ),
      );
  }

  const newCount = names.filter((name) => !target.existing.has(name)).length;
  const limit = target.project?.featureLimit ?? null;
  if (limit !== null && target.liveInProject + newCount > limit)
    errors.push(
      item(
        `We detected you want to create ${newCount} new features to a project that already has ${target.liveInProject} existing features, exceeding the maximum limit of ${limit}.`,
        [],
      ),
    );

  const segmentNames = new Map((data.segments ?? []).map((s) => [s.id, s.name]));
  const missingSegments = unique((data.segments ?? []).filter((s) => !plan.segmentIds.has(s.id)).map((s) => s.name));
  if (missingSegments.length > 0) errors.push(item("We detected the following segments that need to be created first:", missingSegments));
  const unlistedSegments = unique(
    data.featureStrategies.flatMap((s) =>
      (s.segments ?? []).filter((id) => !segmentNames.has(id)).map((id) => `${s.featureName}: segment ${id}`),
    ),
  );
  if (unlistedSegments.length > 0)
    errors.push(item("These strategies use segments that the data's segments list does not name:", unlistedSegments));

  const parentsMissing = unique(
    (data.dependencies ?? []).flatMap((d) =>
      d.dependencies
        .map((p) => p.feature)
        .filter((parent) => {
          if (imported.has(parent)) return false;
          const existing = target.existing.get(parent);
          return !existing || existing.archived || existing.project !== input.project;
        }),
    ),
  );
  if (parentsMissing.length > 0) errors.push(item("We detected the following dependencies that need to be created first:", parentsMissing));
  const manyParents = (data.dependencies ?? []).filter((d) => d.dependencies.length > 1).map((d) => d.feature);
  if (manyParents.length > 0) errors.push(item("A flag can depend on one parent only; these list several:", manyParents));

  const unknownTypes = data.features.filter((f) => f.type !== undefined && !Object.hasOwn(featureTypeLifetimes, f.type)).map((f) => f.name);
  if (unknownTypes.length > 0) errors.push(item(`These flags have a type other than ${featureTypeNames.join(", ")}:`, unknownTypes));

  const strays = unique([
    ...data.featureStrategies.map((s) => s.featureName),
    ...(data.featureEnvironments ?? []).map((e) => e.featureName ?? e.name ?? ""),
    ...(data.featureTags ?? []).map((t) => t.featureName),
    ...(data.dependencies ?? []).map((d) => d.feature),
  ]).filter((name) => !imported.has(name));
  if (strays.length > 0) errors.push(item("The data refers to flags that are not in its features list:", strays));

  const custom = new Set(target.strategies.filter((s) => s.editable).map((s) => s.name));
  const customUsed = unique(data.featureStrategies.map((s) => s.name).filter((name) => custom.has(name)));
  if (customUsed.length > 0)
    warnings.push(
      item(
        "The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:",
        customUsed,
      ),
    );
  if (plan.archived.length > 0)
    warnings.push(
      item(
        "The following features will not be imported as they are currently archived. To import them, please unarchive them first:",
        plan.archived,
      ),
    );
  const overwritten = names.filter((name) => target.existing.get(name)?.project === input.project);
  if (overwritten.length > 0)
    warnings.push(item("The following features already exist in this project and will be overwritten:", overwritten));
  const links = (input.data.links ?? []).filter((l) => l.links.length > 0).map((l) => l.feature);
  if (links.length > 0) warnings.push(item("Vexil does not import feature links yet; the links of these flags are left out:", links));

  return { errors, warnings, permissions: [] };
}
