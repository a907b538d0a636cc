import type { AppRoute, AppRouter } from "@ts-rest/core";
import type { AppRouteImplementation } from "@ts-rest/express";
import type { IRouter } from "express";
import { routeAccessOf, type AccessScopeSources, type RouteAccessRule, type ScopeSource } from "@vexil/contracts";
import { mountContract, type RouterImplementation } from "@vexil/http";
import type { AccessScope, AccessService } from "./access-service.js";
import type { Actor } from "./actor.js";

/** What the guard needs besides the access rules: how a `flag:` scope finds the flag's project. */
export interface RouteGuard {
  access: AccessService;
  /** The project of a flag, for `flag:` scopes: NotFoundError, or undefined to check without a project. */
  projectOfFlag?: (featureName: string) => Promise<string | undefined>;
}

type Unguarded = { metadata: { access: { permission: "none" } } };
/** A route's handler: ts-rest's input, plus the actor the guard admitted unless the route is unguarded. */
export type GuardedHandler<R extends AppRoute> = (
  input: Parameters<AppRouteImplementation<R>>[0] & (R extends Unguarded ? unknown : { actor: Actor }),
) => ReturnType<AppRouteImplementation<R>>;
export type GuardedImplementation<T extends AppRouter> = {
  [K in keyof T]: T[K] extends AppRoute ? GuardedHandler<T[K]> : never;
};

type HandlerInput = { req: object } & Partial<Record<"params" | "query" | "body", unknown>>;
type Handler = (input: HandlerInput) => Promise<unknown>;

function valueAt(input: HandlerInput, source: ScopeSource): string | undefined {
  const [part, key] = source.split(".", 2) as ["params" | "query" | "body", string];
  const value = (input[part] as Record<string, unknown> | undefined)?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

async function scopeOf(sources: AccessScopeSources | undefined, input: HandlerInput, guard: RouteGuard): Promise<AccessScope> {
  const scope: AccessScope = {};
  const project = sources?.project;
  if (project?.startsWith("flag:")) {
    const featureName = valueAt(input, project.slice("flag:".length) as ScopeSource);
    if (featureName !== undefined) scope.project = await guard.projectOfFlag!(featureName);
  } else if (project) {
    scope.project = valueAt(input, project as ScopeSource);
  }
  if (sources?.environment) scope.environment = valueAt(input, sources.environment);
  return scope;
}

function ruleOf(route: AppRoute, guard: RouteGuard): RouteAccessRule {
  const rule = routeAccessOf(route);
  if (!rule) throw new Error(`${route.method} ${route.path} declares no access rule in its contract`);
  if (rule.permission !== "none" && rule.scope?.project?.startsWith("flag:") && !guard.projectOfFlag) {
    throw new Error(`${route.method} ${route.path} scopes by a flag's project, but no projectOfFlag was given`);
  }
  return rule;
}

/**
 * Mounts a contract with each route's declared permission checked before its handler, in the
 * scope the route names; the handler receives the admitted actor. Validation errors come first
 * (400 before 401/403), as ts-rest validates before any handler runs.
 */
export function mountGuardedContract<T extends AppRouter>(
  router: IRouter,
  contract: T,
  guard: RouteGuard,
  implementation: GuardedImplementation<T>,
): void {
  const guarded = Object.fromEntries(
    Object.entries(implementation as unknown as Record<string, Handler>).map(([name, handler]) => {
      const rule = ruleOf(contract[name] as AppRoute, guard);
      if (rule.permission === "none") return [name, handler];
      const permission = rule.permission;
      const checked: Handler = async (input) => {
        const scope = await scopeOf(rule.scope, input, guard);
        return handler({ ...input, actor: guard.access.assert(input.req, permission, scope) } as HandlerInput);
      };
      return [name, checked];
    }),
  );
  mountContract(router, contract, guarded as unknown as RouterImplementation<T>);
}
