import { queryOptions, useQuery } from "@tanstack/react-query";
import { adminApi, ok } from "./api.js";
import { keys } from "./query-keys.js";

/** Every project with its flag count and health: the first screen, read as soon as the sign-in succeeds. */
export const projectsQuery = queryOptions({ queryKey: keys.projects, queryFn: () => ok(adminApi.projects.list()) });

/** The project's settings, health and flag counts (not its flags), with each environment's change-request rule. */
export function useProject(projectId: string) {
  return useQuery({
    queryKey: keys.project(projectId),
    queryFn: async () => {
      const [overview, environments, changeRequestConfig] = await Promise.all([
        ok(adminApi.projects.getSummary({ params: { projectId } })),
        ok(adminApi.environments.listForProject({ params: { projectId } })),
        ok(adminApi.changeRequests.getConfig({ params: { projectId } })),
      ]);
      const protectedEnvironments = new Set(changeRequestConfig.filter((c) => c.changeRequestEnabled).map((c) => c.environment));
      return { overview, environments: environments.environments.filter((e) => e.enabled), changeRequestConfig, protectedEnvironments };
    },
  });
}

/** A project as its screens have it once read. */
export type LoadedProject = NonNullable<ReturnType<typeof useProject>["data"]>;

export function useAllEnvironments() {
  return useQuery({ queryKey: keys.environments, queryFn: () => ok(adminApi.environments.list()) });
}

/** What the strategy editor offers: strategy types, context fields, segments. */
export function useStrategyChoices() {
  return useQuery({
    queryKey: keys.strategyChoices,
    queryFn: async () => {
      const [strategies, contextFields, segments] = await Promise.all([
        ok(adminApi.strategies.list()),
        ok(adminApi.context.list()),
        ok(adminApi.segments.list()),
      ]);
      const contextNames = contextFields.map((f) => f.name);
      const stickiness = ["default", ...contextFields.filter((f) => f.stickiness).map((f) => f.name), "random"];
      return {
        strategies: strategies.strategies.filter((s) => !s.deprecated),
        contextNames,
        stickiness: [...new Set(stickiness)],
        segments: segments.segments,
      };
    },
    staleTime: 30_000,
  });
}
