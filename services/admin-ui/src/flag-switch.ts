import { adminApi, ok } from "./api.js";
import { keys } from "./query-keys.js";
import { useResourceMutation } from "./resource.js";

export interface FlagSwitch {
  projectId: string;
  flag: string;
  environment: string;
  enabled: boolean;
  /** The environment requires change requests: the switch proposes the change instead of making it. */
  protectedEnvironment: boolean;
}

/**
 * Turns a flag on or off in one environment; in a protected environment it adds the change to the
 * caller's change request instead, and answers with that request's id.
 */
export async function switchFlag({
  projectId,
  flag,
  environment,
  enabled,
  protectedEnvironment,
}: FlagSwitch): Promise<{ changeRequestId?: number }> {
  const params = { projectId, featureName: flag, environment };
  if (protectedEnvironment) {
    const request = await ok(
      adminApi.changeRequests.addChanges({
        params: { projectId, environment },
        body: [{ action: "updateEnabled", feature: flag, payload: { enabled } }],
      }),
    );
    return { changeRequestId: request.id };
  }
  await ok(enabled ? adminApi.features.enableInEnvironment({ params }) : adminApi.features.disableInEnvironment({ params }));
  return {};
}

/** What the toast says once a switch is done. */
export function switchedText({ flag, environment, enabled }: FlagSwitch, { changeRequestId }: { changeRequestId?: number }): string {
  const state = enabled ? "on" : "off";
  return changeRequestId === undefined
    ? `${flag} is ${state} in ${environment}`
    : `Turning ${flag} ${state} in ${environment} added to change request #${changeRequestId}`;
}

export function useFlagSwitch(projectId: string) {
  return useResourceMutation({
    mutate: switchFlag,
    invalidates: (_result, variables) => [
      keys.flags(projectId),
      keys.flag(projectId, variables.flag),
      keys.changeRequests(projectId),
      keys.flagSearch,
    ],
    done: (result, variables) => switchedText(variables, result),
  });
}
