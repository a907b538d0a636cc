export { compileSnapshot, compilingSnapshot } from "./compile.js";
export type { CompiledDependency, CompiledFeature, CompiledSnapshot, CompiledStrategy } from "./compile.js";
export { applyDelta } from "./delta.js";
/** One constraint as a predicate over a context, for callers outside flag evaluation (action filters). */
export { compileConstraint } from "./constraints.js";
export type { Check } from "./constraints.js";
export type { DeltaEvent } from "./delta.js";
export { contextFreeResult, evaluate, evaluateAll, evaluateFeature } from "./evaluate.js";
/** The answer with the reason for it, in OpenFeature's terms (OFREP). */
export { evaluateWithResolution } from "./resolution.js";
export type { Resolution } from "./resolution.js";
/** Why a feature is on or off: per constraint, segment and strategy (the admin playground). */
export { explainAll } from "./explain.js";
export type { ConstraintOutcome, FeatureExplanation, SegmentOutcome, StrategyOutcome } from "./explain.js";
export type {
  ClientFeature,
  ClientFeaturesPayload,
  ClientStrategy,
  Constraint,
  Context,
  Dependency,
  EvaluateOptions,
  EvaluationResult,
  FeatureEvaluation,
  Operator,
  Segment,
  Variant,
  VariantOverride,
  VariantPayload,
  VariantResult,
} from "./types.js";
