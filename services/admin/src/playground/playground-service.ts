import type {
  PlaygroundConstraint,
  PlaygroundContext,
  PlaygroundFeature,
  PlaygroundRequest,
  PlaygroundResponse,
  PlaygroundStrategy,
} from "@vexil/contracts";
import { sdkContextFields } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import {
  explainAll,
  type ClientFeature,
  type ConstraintOutcome,
  type Context,
  type FeatureExplanation,
  type StrategyOutcome,
} from "@vexil/evaluator";
import { environmentOf, type FeatureDocument, type SegmentDocument } from "../features/feature-model.js";
import { inSortOrder, servedIn, toClientFeature, toClientSegment, toClientStrategy } from "../snapshots/client-features.js";

/** What the playground reads: the flag model as the snapshot publisher reads it. */
export interface PlaygroundSources {
  listFeatures(): Promise<FeatureDocument[]>;
  listSegments(): Promise<SegmentDocument[]>;
  listEnvironments(): Promise<string[]>;
  listProjectEnvironments(): Promise<Array<{ project: string; environment: string }>>;
}

/**
 * Evaluates flags for a context as an SDK connected to the environment would, with the reasons
 * (Unleash's playground). The flags an SDK receives are the ones evaluated: not archived, in a
 * project that has the environment; disabled strategies are listed too, as Unleash lists them.
 */
export class PlaygroundService {
  constructor(
    private readonly deps: {
      sources: PlaygroundSources;
      clock: () => Date;
      random: () => number;
    },
  ) {}

  async evaluate(request: PlaygroundRequest, maySee: (project: string) => Promise<boolean>): Promise<PlaygroundResponse> {
    const { environment } = request;
    const [environments, projectEnvironments, features, segments] = await Promise.all([
      this.deps.sources.listEnvironments(),
      this.deps.sources.listProjectEnvironments(),
      this.deps.sources.listFeatures(),
      this.deps.sources.listSegments(),
    ]);
    if (!environments.includes(environment)) {
      throw new ValidationError(`Environment ${environment} does not exist`, [{ path: "environment", message: "Unknown environment" }]);
    }
    const served = new Map<string, Set<string>>();
    for (const { project, environment: name } of projectEnvironments) {
      if (!served.has(project)) served.set(project, new Set());
      served.get(project)!.add(name);
    }
    const wanted = request.projects === undefined || request.projects === "*" ? undefined : new Set(request.projects);
    const candidates = features.filter((doc) => servedIn(doc, environment, served) && (!wanted || wanted.has(doc.project)));
    const visible = await Promise.all(candidates.map((doc) => maySee(doc.project)));
    const names = new Set(candidates.filter((_, i) => visible[i]).map((doc) => doc._id));
    // Parents are evaluated as the SDK sees them, whatever the chosen projects.
    const parents = new Set(features.filter((doc) => names.has(doc._id)).flatMap((doc) => doc.dependencies.map((d) => d.feature)));
    const payloadFeatures = features
      .filter((doc) => servedIn(doc, environment, served) && (names.has(doc._id) || parents.has(doc._id)))
      .map((doc) => playgroundFeature(doc, environment));
    const context = toEvaluatorContext(request.context, environment);
    const explanations = explainAll({ version: 2, features: payloadFeatures, segments: segments.map(toClientSegment) }, context, {
      random: this.deps.random,
      now: () => this.deps.clock().getTime(),
    });
    const hostnameGiven = context.properties?.hostname !== undefined;
    return {
      input: request,
      features: explanations.filter((e) => names.has(e.name)).map((e) => toPlaygroundFeature(e, environment, hostnameGiven)),
    };
  }
}

/** The flag as the SDKs receive it, with its disabled strategies marked rather than left out. */
function playgroundFeature(doc: FeatureDocument, environment: string): ClientFeature {
  const strategies = inSortOrder(environmentOf(doc, environment)?.strategies ?? []);
  return {
    ...toClientFeature(doc, environment),
    strategies: strategies.map((strategy) => ({ ...toClientStrategy(strategy), title: strategy.title, disabled: strategy.disabled })),
  };
}

/** Known fields where the SDKs keep them; any other top-level field is a property, as the SDKs resolve it. */
export function toEvaluatorContext(input: PlaygroundContext, environment: string): Context {
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!sdkContextFields.has(key) && value !== undefined) properties[key] = String(value);
  }
  Object.assign(properties, input.properties);
  return {
    appName: input.appName,
    environment: input.environment ?? environment,
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
    ...(input.remoteAddress !== undefined ? { remoteAddress: input.remoteAddress } : {}),
    ...(input.currentTime !== undefined ? { currentTime: input.currentTime } : {}),
    properties,
  };
}

function constraintsOf(outcomes: ConstraintOutcome[]): PlaygroundConstraint[] {
  return outcomes.map(({ constraint, result }) => ({ ...(constraint as PlaygroundConstraint), result }));
}

function toPlaygroundStrategy(
  outcome: StrategyOutcome,
  feature: ClientFeature,
  environment: string,
  hostnameGiven: boolean,
): PlaygroundStrategy {
  const { strategy } = outcome;
  const id = strategy.id ?? "";
  const gated = outcome.constraints.every((c) => c.result) && outcome.segments.every((s) => s.result);
  let result: PlaygroundStrategy["result"];
  // As Unleash reports them: a disabled strategy is unevaluated, a custom one incomplete. The host
  // name is the SDK's own: without a `hostname` in the context, applicationHostname cannot be decided.
  const undecidable = outcome.rule === undefined || (strategy.name === "applicationHostname" && !hostnameGiven);
  if (outcome.disabled) result = { evaluationStatus: "unevaluated", enabled: "unknown" };
  else if (undecidable) result = { evaluationStatus: "incomplete", enabled: gated ? "unknown" : false };
  else result = { evaluationStatus: "complete", enabled: outcome.matches };
  const query = new URLSearchParams({ environmentId: environment, strategyId: id });
  return {
    name: strategy.name,
    id,
    // Left out when there is none, as Unleash does.
    title: strategy.title ?? undefined,
    result,
    disabled: outcome.disabled,
    parameters: (strategy.parameters ?? {}) as Record<string, string>,
    constraints: constraintsOf(outcome.constraints),
    segments: outcome.segments.map((s) => ({
      id: s.id,
      name: s.segment?.name ?? "",
      result: s.result,
      constraints: constraintsOf(s.constraints),
    })),
    links: {
      edit: `/projects/${encodeURIComponent(feature.project ?? "")}/features/${encodeURIComponent(feature.name)}?${query}`,
    },
  };
}

function toPlaygroundFeature(explanation: FeatureExplanation, environment: string, hostnameGiven: boolean): PlaygroundFeature {
  const { feature, variant } = explanation;
  const data = explanation.strategies.map((outcome) => toPlaygroundStrategy(outcome, feature, environment, hostnameGiven));
  const deciding = explanation.decidedBy === undefined ? undefined : explanation.strategies[explanation.decidedBy]?.strategy;
  let strategiesResult: PlaygroundFeature["strategies"]["result"] = data.some((s) => s.result.enabled === true);
  if (data.length === 0) strategiesResult = feature.enabled;
  else if (!strategiesResult && data.some((s) => s.result.enabled === "unknown")) strategiesResult = "unknown";
  return {
    name: feature.name,
    projectId: feature.project ?? "",
    strategies: { result: strategiesResult, data },
    hasUnsatisfiedDependency: !explanation.dependenciesMet,
    isEnabledInCurrentEnvironment: feature.enabled,
    isEnabled: explanation.enabled,
    variant: {
      name: variant.name,
      enabled: variant.enabled,
      ...(variant.payload ? { payload: variant.payload as PlaygroundFeature["variant"]["payload"] } : {}),
      feature_enabled: variant.feature_enabled,
      // Unleash repeats feature_enabled as featureEnabled for an enabled flag, except for a strategy's variant.
      ...(explanation.enabled && !deciding?.variants?.length ? { featureEnabled: variant.featureEnabled } : {}),
    },
    // The variants that were drawn from: the deciding strategy's, else the flag's.
    variants: (deciding?.variants?.length ? deciding.variants : (feature.variants ?? [])) as PlaygroundFeature["variants"],
  };
}
