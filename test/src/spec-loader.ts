import type { AdminCall } from "./flag-admin.js";

/**
 * Loads a client-specification `state` (the `/api/client/features` payload the spec's SDK tests
 * start from) into Vexil through the public admin API only, as an operator would rebuild it.
 *
 * The admin API applies its own rules on the way in; the loader never works around them. What it
 * refuses is reported in `refused` (the flag is then left incomplete and is not switched on), and
 * what it accepts but stores differently from the spec is reported in `altered`.
 */

export interface SpecConstraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}

export interface SpecVariant {
  name: string;
  weight: number;
  weightType?: "variable" | "fix";
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: Array<{ contextName: string; values: string[] }>;
}

export interface SpecStrategy {
  name: string;
  parameters?: Record<string, string | number>;
  constraints?: SpecConstraint[];
  segments?: number[];
  variants?: SpecVariant[];
}

export interface SpecFeature {
  name: string;
  description?: string;
  enabled: boolean;
  impressionData?: boolean;
  strategies?: SpecStrategy[];
  variants?: SpecVariant[];
  dependencies?: SpecDependency[];
}

export interface SpecDependency {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

export interface SpecState {
  features: SpecFeature[];
  segments?: Array<{ id: number; name?: string; constraints: SpecConstraint[] }>;
}

export interface Refusal {
  feature: string;
  step: string;
  status: number;
  message: string;
}

export interface Alteration {
  feature: string;
  what: string;
}

export interface LoadReport {
  refused: Refusal[];
  altered: Alteration[];
  /** Admin calls that succeeded, i.e. changes the snapshot has to catch up with. */
  changes: number;
}

const VARIANT_WEIGHT_TOTAL = 1000;

/** The admin API sorts variant lists with Unleash's `localeCompare` order (en-US). */
const byName = new Intl.Collator("en-US").compare;

/**
 * Strategy or environment variants as the admin API takes them: as in Unleash, `variable` weights
 * are spread over what the `fix` ones leave of 1000 and the list is sorted by name. A list totalling
 * 1000 and already in name order is sent as `fix` weights with the last one `variable`, so it is
 * stored exactly; a single variant always wins whatever its weight. Any other list cannot be stored
 * as given: it is sent as `variable` and the change is reported.
 */
export function variantsInput(variants: readonly SpecVariant[]): { input: SpecVariant[]; exact: boolean } {
  const total = variants.reduce((sum, v) => sum + v.weight, 0);
  const inNameOrder = variants.every((v, i) => i === 0 || byName(variants[i - 1]!.name, v.name) < 0);
  if (variants.length > 1 && total === VARIANT_WEIGHT_TOTAL && inNameOrder) {
    return {
      input: variants.map((v, i) => ({ ...v, weightType: i === variants.length - 1 ? "variable" : "fix" })),
      exact: true,
    };
  }
  return { input: variants.map((v) => ({ ...v, weightType: "variable" })), exact: variants.length <= 1 };
}

const describeVariants = (variants: readonly SpecVariant[]) => variants.map((v) => `${v.name}=${v.weight}`).join(", ");

/**
 * Dependencies are one level deep in the admin API (a parent has no parent of its own): links to
 * parents that have none in the spec go first, so the refusal falls on the deeper link.
 */
function dependencyOrder(features: readonly SpecFeature[]): Array<{ child: string; dependency: SpecDependency }> {
  const hasParents = new Set(features.filter((f) => (f.dependencies ?? []).length > 0).map((f) => f.name));
  const links = features.flatMap((f) => (f.dependencies ?? []).map((dependency) => ({ child: f.name, dependency })));
  return [...links.filter((l) => !hasParents.has(l.dependency.feature)), ...links.filter((l) => hasParents.has(l.dependency.feature))];
}

export async function loadSpecState(
  call: AdminCall,
  state: SpecState,
  project = "default",
  environment = "development",
): Promise<LoadReport> {
  const report: LoadReport = { refused: [], altered: [], changes: 0 };
  const incomplete = new Set<string>();
  const featurePath = (name: string) => `/api/admin/projects/${project}/features/${encodeURIComponent(name)}`;
  const environmentPath = (name: string) => `${featurePath(name)}/environments/${environment}`;

  /** Runs one admin call; a refusal is recorded against the flag and marks it incomplete. */
  async function attempt(feature: string, step: string, path: string, init: { method: string; body?: unknown }): Promise<Response | null> {
    const res = await call(path, init);
    if (res.ok) {
      report.changes++;
      return res;
    }
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    report.refused.push({ feature, step, status: res.status, message: body.message ?? "" });
    incomplete.add(feature);
    return null;
  }

  const segmentIds = new Map<number, number>();
  for (const segment of state.segments ?? []) {
    const name = segment.name ?? `spec-segment-${segment.id}`;
    const res = await attempt(`segment ${segment.id}`, "create segment", "/api/admin/segments", {
      method: "POST",
      body: { name, constraints: segment.constraints },
    });
    if (res) segmentIds.set(segment.id, ((await res.json()) as { id: number }).id);
  }

  for (const feature of state.features) {
    const created = await attempt(feature.name, "create", `/api/admin/projects/${project}/features`, {
      method: "POST",
      body: { name: feature.name, description: feature.description, impressionData: feature.impressionData ?? false },
    });
    if (!created) continue;

    for (const [index, strategy] of (feature.strategies ?? []).entries()) {
      const missing = (strategy.segments ?? []).filter((id) => !segmentIds.has(id));
      const variants = variantsInput(strategy.variants ?? []);
      const body = {
        name: strategy.name,
        sortOrder: index,
        parameters: Object.fromEntries(Object.entries(strategy.parameters ?? {}).map(([k, v]) => [k, String(v)])),
        constraints: strategy.constraints ?? [],
        // A segment the spec references but never defines keeps its id, for the API to judge.
        segments: (strategy.segments ?? []).map((id) => segmentIds.get(id) ?? id),
        // The API needs a stickiness per strategy variant; the SDKs use the strategy's when the
        // spec gives none, so that is what is stored.
        variants: variants.input.map((v) => ({ ...v, stickiness: v.stickiness ?? String(strategy.parameters?.stickiness ?? "default") })),
      };
      const step = missing.length > 0 ? `strategy ${index} (undefined segment ${missing.join(", ")})` : `strategy ${index}`;
      const res = await attempt(feature.name, step, `${environmentPath(feature.name)}/strategies`, { method: "POST", body });
      if (res && !variants.exact) {
        const stored = ((await res.json()) as { variants: SpecVariant[] }).variants;
        report.altered.push({
          feature: feature.name,
          what: `strategy ${index} variant weights ${describeVariants(strategy.variants ?? [])} stored as ${describeVariants(stored)}`,
        });
      }
    }

    if (feature.variants && feature.variants.length > 0) {
      const { input, exact } = variantsInput(feature.variants);
      const res = await attempt(feature.name, "variants", `${environmentPath(feature.name)}/variants`, { method: "PUT", body: input });
      if (res && !exact) {
        const stored = ((await res.json()) as { variants: SpecVariant[] }).variants;
        report.altered.push({
          feature: feature.name,
          what: `variant weights ${describeVariants(feature.variants)} stored as ${describeVariants(stored)}`,
        });
      }
    }
  }

  for (const { child, dependency } of dependencyOrder(state.features)) {
    await attempt(child, `dependency on ${dependency.feature}`, `${featurePath(child)}/dependencies`, { method: "POST", body: dependency });
  }

  // Switched on last, and only when complete: a flag missing a strategy or a parent is not the
  // spec's flag, and serving it enabled would answer for something that was never stored. A flag
  // enabled without strategies gets the project's default strategy (flexibleRollout at 100%), as
  // in Unleash; the SDKs treat an enabled flag without strategies as on for everyone, the same.
  for (const feature of state.features) {
    if (!feature.enabled || incomplete.has(feature.name)) continue;
    await attempt(feature.name, "enable", `${environmentPath(feature.name)}/on`, { method: "POST" });
  }
  return report;
}
