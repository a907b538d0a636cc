import { useMutation, useQueryClient } from "@tanstack/react-query";
import { adminApi, ok } from "./api.js";
import { keys } from "./queries.js";

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

export function useFlagSwitch(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: switchFlag,
    onSuccess: async (_result, variables) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.flags(projectId) }),
        queryClient.invalidateQueries({ queryKey: keys.flag(projectId, variables.flag) }),
        queryClient.invalidateQueries({ queryKey: keys.changeRequests(projectId) }),
      ]);
    },
  });
}
