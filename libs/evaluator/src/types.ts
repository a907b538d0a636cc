// Wire shapes of the Unleash client-features payload (`/api/client/features`), as the SDKs read it.
import type { ConstraintOperator } from "@vexil/contracts";

/** The operators the admin API accepts (one list, in contracts); the engine evaluates each. */
export type Operator = ConstraintOperator;

export interface Constraint {
  contextName: string;
  // Kept as string: payloads can carry operators newer than this engine, which evaluate to false.
  operator: Operator | (string & {});
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}

export interface Segment {
  id: number;
  name?: string;
  constraints: Constraint[];
}

export interface VariantPayload {
  type: string;
  value: string;
}

export interface VariantOverride {
  contextName: string;
  values: string[];
}

export interface Variant {
  name: string;
  weight: number;
  weightType?: "fix" | "variable" | (string & {});
  stickiness?: string;
  payload?: VariantPayload;
  overrides?: VariantOverride[];
}

export interface ClientStrategy {
  id?: string;
  name: string;
  parameters?: Record<string, string>;
  constraints?: Constraint[];
  segments?: number[];
  variants?: Variant[];
  disabled?: boolean | null;
  title?: string | null;
  sortOrder?: number;
}

export interface Dependency {
  feature: string;
  // `false` means the parent must be disabled; absent or `true` means enabled.
  enabled?: boolean;
  variants?: string[];
}

export interface ClientFeature {
  name: string;
  enabled: boolean;
  strategies?: ClientStrategy[];
  variants?: Variant[] | null;
  dependencies?: Dependency[];
  impressionData?: boolean;
  project?: string;
  type?: string;
  description?: string | null;
  stale?: boolean;
}

export interface ClientFeaturesPayload {
  version: number;
  features: ClientFeature[];
  segments?: Segment[];
}

export interface Context {
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  environment?: string;
  appName?: string;
  currentTime?: string | Date;
  properties?: Record<string, string | number | boolean | null | undefined>;
}

export interface EvaluateOptions {
  // Uniform in [0, 1): drives random stickiness and gradualRolloutRandom.
  random: () => number;
  // Milliseconds since the epoch; used when the context has no currentTime.
  now: () => number;
}

export interface VariantResult {
  name: string;
  enabled: boolean;
  payload?: VariantPayload;
  feature_enabled: boolean;
  featureEnabled: boolean;
}

export interface EvaluationResult {
  enabled: boolean;
  variant: VariantResult;
  impressionData: boolean;
  exists: boolean;
}

export interface FeatureEvaluation extends EvaluationResult {
  name: string;
}
