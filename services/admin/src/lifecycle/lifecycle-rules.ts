import type { LifecycleStage } from "@vexil/contracts";
import type { LifecycleEntry } from "../features/feature-model.js";

/**
 * How a flag moves through its lifecycle, as Unleash moves it: `initial` on creation, `pre-live`
 * once it is enabled or seen in a non-production environment, `live` in a production one (passing
 * through `pre-live`), `completed` when a user marks it so, `archived` with the flag. Automatic
 * moves only go forward and never out of `completed` or `archived`.
 */
const order: Record<LifecycleStage, number> = { initial: 0, "pre-live": 1, live: 2, completed: 3, archived: 4 };

export const currentStage = (lifecycle: readonly LifecycleEntry[]): LifecycleStage => lifecycle.at(-1)?.stage ?? "initial";

/** The stages a flag enters when it is enabled (or first seen) in an environment of this type. */
export function moveForActivity(lifecycle: readonly LifecycleEntry[], environmentType: string, now: Date): LifecycleEntry[] {
  const target: LifecycleStage = environmentType === "production" ? "live" : "pre-live";
  const current = currentStage(lifecycle);
  if (order[current] >= order[target]) return [...lifecycle];
  const entered = (["pre-live", "live"] as const)
    .filter((stage) => order[stage] > order[current] && order[stage] <= order[target])
    .map((stage) => ({ stage, enteredStageAt: now }));
  return [...lifecycle, ...entered];
}

/** Marks the flag completed; completing again replaces the earlier status. */
export function complete(
  lifecycle: readonly LifecycleEntry[],
  status: "kept" | "discarded",
  statusValue: string | undefined,
  now: Date,
): LifecycleEntry[] {
  const withoutCompleted = currentStage(lifecycle) === "completed" ? lifecycle.slice(0, -1) : [...lifecycle];
  return [...withoutCompleted, { stage: "completed", enteredStageAt: now, status, ...(statusValue ? { statusValue } : {}) }];
}

/** Back to the stage before `completed`; unchanged when the flag is not completed. */
export function uncomplete(lifecycle: readonly LifecycleEntry[]): LifecycleEntry[] {
  return currentStage(lifecycle) === "completed" ? lifecycle.slice(0, -1) : [...lifecycle];
}
