export { compileSnapshot } from './compile.js';
export type { CompiledDependency, CompiledFeature, CompiledSnapshot, CompiledStrategy } from './compile.js';
export { applyDelta } from './delta.js';
export type { DeltaEvent } from './delta.js';
export { evaluate, evaluateAll } from './evaluate.js';
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
} from './types.js';
