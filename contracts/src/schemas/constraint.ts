import { z } from "zod";

/** The spec's fifteen operators plus the ones current Unleash SDKs understand. */
export const constraintOperators = [
  "NOT_IN",
  "IN",
  "STR_ENDS_WITH",
  "STR_STARTS_WITH",
  "STR_CONTAINS",
  "NUM_EQ",
  "NUM_GT",
  "NUM_GTE",
  "NUM_LT",
  "NUM_LTE",
  "DATE_AFTER",
  "DATE_BEFORE",
  "SEMVER_EQ",
  "SEMVER_GT",
  "SEMVER_LT",
  "REGEX",
  "IN_CIDR",
  "SEMVER_GTE",
  "SEMVER_LTE",
] as const;
export const constraintOperatorSchema = z.enum(constraintOperators);
export type ConstraintOperator = z.infer<typeof constraintOperatorSchema>;

const listOperators = new Set<ConstraintOperator>(["IN", "NOT_IN", "STR_STARTS_WITH", "STR_ENDS_WITH", "STR_CONTAINS", "IN_CIDR"]);

/** Operators that read `values`; all others read the single `value`. */
export function takesValues(operator: ConstraintOperator): boolean {
  return listOperators.has(operator);
}

export const constraintSchema = z.object({
  contextName: z.string().min(1).max(100),
  operator: constraintOperatorSchema,
  caseInsensitive: z.boolean().optional(),
  inverted: z.boolean().optional(),
  values: z.array(z.string()).optional(),
  value: z.string().optional(),
});
export type Constraint = z.infer<typeof constraintSchema>;
