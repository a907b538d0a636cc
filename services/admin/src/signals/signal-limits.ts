import { z } from "zod";

/** Unleash's resource limits for signals and actions, under its own variable names. */
export const signalLimitsEnv = z.object({
  UNLEASH_SIGNAL_ENDPOINTS_LIMIT: z.coerce.number().int().min(0).default(5),
  UNLEASH_SIGNAL_TOKENS_PER_ENDPOINT_LIMIT: z.coerce.number().int().min(0).default(5),
  UNLEASH_ACTION_SETS_PER_PROJECT_LIMIT: z.coerce.number().int().min(0).default(5),
  UNLEASH_ACTION_SET_ACTIONS_LIMIT: z.coerce.number().int().min(0).default(10),
  UNLEASH_ACTION_SET_FILTERS_LIMIT: z.coerce.number().int().min(0).default(5),
  UNLEASH_ACTION_SET_FILTER_VALUES_LIMIT: z.coerce.number().int().min(0).default(25),
});
export type SignalLimitSettings = z.infer<typeof signalLimitsEnv>;

/** Settings given by the caller win; the rest take Unleash's defaults. */
export function signalLimits(settings: Partial<SignalLimitSettings>) {
  const limits = signalLimitsEnv.parse(settings);
  return {
    endpoints: limits.UNLEASH_SIGNAL_ENDPOINTS_LIMIT,
    tokensPerEndpoint: limits.UNLEASH_SIGNAL_TOKENS_PER_ENDPOINT_LIMIT,
    actionSetsPerProject: limits.UNLEASH_ACTION_SETS_PER_PROJECT_LIMIT,
    actionsPerSet: limits.UNLEASH_ACTION_SET_ACTIONS_LIMIT,
    filtersPerSet: limits.UNLEASH_ACTION_SET_FILTERS_LIMIT,
    filterValues: limits.UNLEASH_ACTION_SET_FILTER_VALUES_LIMIT,
  };
}
export type SignalLimits = ReturnType<typeof signalLimits>;
