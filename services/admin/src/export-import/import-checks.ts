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

/** What every rule reads: the request, its plan (archived flags left out) and the target installation. */
interface ImportCheckContext {
  input: ImportToggles;
  plan: ImportPlan;
  data: ImportPlan["data"];
  target: ImportTarget;
  /** The names of the flags imported, in the data's order (duplicates kept). */
  names: string[];
  imported: Set<string>;
}

/** One check of an import: a finding (an error refuses the import, a warning is shown), or none. */
interface ImportRule {
  severity: "error" | "warning";
  check(context: ImportCheckContext): ImportValidationItem | undefined;
}

/** A finding naming the affected items, when there are any. */
const listed = (message: string, affectedItems: string[]) => (affectedItems.length > 0 ? item(message, affectedItems) : undefined);

function nameMismatches(name: string, naming: FeatureNamingDocument): boolean {
  try {
    assertMatchesNaming(name, naming);
    return false;
  } catch {
    return true;
  }
}

/** Unleash's validation messages, plus the checks Vexil's stricter model needs (one parent, known types), in the order they are reported. */
const importRules: ImportRule[] = [
  // Target project and environment
  {
    severity: "error",
    check: ({ input, target }) => {
      if (!target.project) return item(`Project ${input.project} does not exist.`, [input.project]);
      if (!target.projectEnvironments.includes(input.environment))
        return item(`Environment ${input.environment} is not enabled in project ${input.project}.`, [input.environment]);
      return undefined;
    },
  },
  // Strategies the target lacks
  {
    severity: "error",
    check: ({ data, target }) => {
      const known = new Set(target.strategies.map((s) => s.name));
      return listed(
        "We detected the following custom strategy that needs to be created first:",
        unique(data.featureStrategies.map((s) => s.name).filter((name) => !known.has(name))),
      );
    },
  },
  // Context fields with other legal values
  {
    severity: "error",
    check: ({ data, target }) => {
      const conflicting = (data.contextFields ?? []).filter((field) => {
        const existing = target.contextFields.find((f) => f.name === field.name);
        return existing && !(field.legalValues ?? []).every((v) => existing.legalValues.some((e) => e.value === v.value));
      });
      return listed(
        "We detected the following context fields that do not have matching legal values with the imported ones:",
        conflicting.map((f) => f.name),
      );
    },
  },
  // Flags that live in another project
  {
    severity: "error",
    check: ({ input, target, names }) => {
      const elsewhere = names.filter((name) => {
        const existing = target.existing.get(name);
        return existing && !existing.archived && existing.project !== input.project;
      });
      return listed(
        `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${input.project}:`,
        elsewhere.map((name) => `${name} (in project ${target.existing.get(name)?.project})`),
      );
    },
  },
  // Flags listed twice
  {
    severity: "error",
    check: ({ names }) =>
      listed(
        "We detected the following features are duplicate in your import data:",
        unique(names.filter((name, i) => names.indexOf(name) !== i)),
      ),
  },
  // The project's naming pattern
  {
    severity: "error",
    check: ({ target, names }) => {
      const naming = target.project?.featureNaming;
      if (!naming) return undefined;
      return listed(
        `Features imported into this project must match the project's feature naming pattern: "${naming.pattern}". The following features do not match the pattern:`,
        names.filter((name) => nameMismatches(name, naming)).sort(),
      );
    },
  },
  // The project's flag limit
  {
    severity: "error",
    check: ({ target, names }) => {
      const newCount = names.filter((name) => !target.existing.has(name)).length;
      const limit = target.project?.featureLimit ?? null;
      if (limit === null || target.liveInProject + newCount <= limit) return undefined;
      return item(
        `We detected you want to create ${newCount} new features to a project that already has ${target.liveInProject} existing features, exceeding the maximum limit of ${limit}.`,
        [],
      );
    },
  },
  // Segments the target lacks
  {
    severity: "error",
    check: ({ data, plan }) =>
      listed(
        "We detected the following segments that need to be created first:",
        unique((data.segments ?? []).filter((s) => !plan.segmentIds.has(s.id)).map((s) => s.name)),
      ),
  },
  // Strategies using segments the data does not list
  {
    severity: "error",
    check: ({ data }) => {
      const listedIds = new Set((data.segments ?? []).map((s) => s.id));
      return listed(
        "These strategies use segments that the data's segments list does not name:",
        unique(
          data.featureStrategies.flatMap((s) =>
            (s.segments ?? []).filter((id) => !listedIds.has(id)).map((id) => `${s.featureName}: segment ${id}`),
          ),
        ),
      );
    },
  },
  // Parents neither imported nor live in the project
  {
    severity: "error",
    check: ({ input, data, target, imported }) =>
      listed(
        "We detected the following dependencies that need to be created first:",
        unique(
          (data.dependencies ?? []).flatMap((d) =>
            d.dependencies
              .map((p) => p.feature)
              .filter((parent) => {
                if (imported.has(parent)) return false;
                const existing = target.existing.get(parent);
                return !existing || existing.archived || existing.project !== input.project;
              }),
          ),
        ),
      ),
  },
  // More than one parent
  {
    severity: "error",
    check: ({ data }) =>
      listed(
        "A flag can depend on one parent only; these list several:",
        (data.dependencies ?? []).filter((d) => d.dependencies.length > 1).map((d) => d.feature),
      ),
  },
  // Unknown flag types
  {
    severity: "error",
    check: ({ data }) =>
      listed(
        `These flags have a type other than ${featureTypeNames.join(", ")}:`,
        data.features.filter((f) => f.type !== undefined && !Object.hasOwn(featureTypeLifetimes, f.type)).map((f) => f.name),
      ),
  },
  // Entries for flags the data does not list
  {
    severity: "error",
    check: ({ data, imported }) =>
      listed(
        "The data refers to flags that are not in its features list:",
        unique([
          ...data.featureStrategies.map((s) => s.featureName),
          ...(data.featureEnvironments ?? []).map((e) => e.featureName ?? e.name ?? ""),
          ...(data.featureTags ?? []).map((t) => t.featureName),
          ...(data.dependencies ?? []).map((d) => d.feature),
        ]).filter((name) => !imported.has(name)),
      ),
  },
  // Custom strategies used
  {
    severity: "warning",
    check: ({ data, target }) => {
      const custom = new Set(target.strategies.filter((s) => s.editable).map((s) => s.name));
      return listed(
        "The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:",
        unique(data.featureStrategies.map((s) => s.name).filter((name) => custom.has(name))),
      );
    },
  },
  // Archived flags left out
  {
    severity: "warning",
    check: ({ plan }) =>
      listed(
        "The following features will not be imported as they are currently archived. To import them, please unarchive them first:",
        plan.archived,
      ),
  },
  // Flags overwritten
  {
    severity: "warning",
    check: ({ input, target, names }) =>
      listed(
        "The following features already exist in this project and will be overwritten:",
        names.filter((name) => target.existing.get(name)?.project === input.project),
      ),
  },
  // Feature links left out
  {
    severity: "warning",
    check: ({ input }) =>
      listed(
        "Vexil does not import feature links yet; the links of these flags are left out:",
        (input.data.links ?? []).filter((l) => l.links.length > 0).map((l) => l.feature),
      ),
  },
];

/** Every rule's finding, errors and warnings apart, each in the rules' order. */
export function checkImport(input: ImportToggles, plan: ImportPlan, target: ImportTarget): ImportValidation {
  const names = plan.data.features.map((f) => f.name);
  const context: ImportCheckContext = { input, plan, data: plan.data, target, names, imported: new Set(names) };
  const errors: ImportValidationItem[] = [];
  const warnings: ImportValidationItem[] = [];
  for (const rule of importRules) {
    const finding = rule.check(context);
    if (finding) (rule.severity === "error" ? errors : warnings).push(finding);
  }
  return { errors, warnings, permissions: [] };
}
