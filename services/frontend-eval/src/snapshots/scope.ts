import type { TokenGrant } from "@vexil/auth";
import type { DeltaEvent } from "@vexil/contracts";

const ALL = "*";

/** Which flags a request may see: the token's projects, narrowed by the query. */
export interface FeatureScope {
  /** undefined: every project. */
  projects: readonly string[] | undefined;
  namePrefix: string | undefined;
}

export function scopeFor(grant: TokenGrant, query: { project?: string | string[]; namePrefix?: string } = {}): FeatureScope {
  const tokenProjects = grant.projects.includes(ALL) ? undefined : grant.projects;
  const asked = query.project === undefined ? undefined : [query.project].flat().filter((p) => p !== ALL);
  let projects = tokenProjects;
  if (asked && asked.length > 0) projects = tokenProjects ? asked.filter((p) => tokenProjects.includes(p)) : asked;
  return {
    projects: projects ? [...new Set(projects)].sort() : undefined,
    namePrefix: query.namePrefix || undefined,
  };
}

export function inScope(scope: FeatureScope, name: string, project: string | undefined): boolean {
  if (scope.projects && (project === undefined || !scope.projects.includes(project))) return false;
  return scope.namePrefix === undefined || name.startsWith(scope.namePrefix);
}

/** Delta events a scope may see; segments are not project-bound and always pass. */
export function eventsInScope(scope: FeatureScope, events: readonly DeltaEvent[]): DeltaEvent[] {
  if (!scope.projects && scope.namePrefix === undefined) return [...events];
  return events.filter((event) => {
    if (event.type === "feature-updated") return inScope(scope, event.feature.name, event.feature.project);
    if (event.type === "feature-removed") return inScope(scope, event.featureName, event.project);
    return true;
  });
}

export function scopeKey(scope: FeatureScope): string {
  return `${scope.projects?.join(",") ?? ALL}|${scope.namePrefix ?? ""}`;
}

/**
 * The environment a token reads. Client and frontend tokens name one; a token for every
 * environment (`*`) reads `default` as in Unleash, or `development` where there is no `default`
 * environment (a fresh installation has only development and production).
 */
export function environmentFor(grant: TokenGrant, has: (environment: string) => boolean): string {
  if (grant.environment !== ALL) return grant.environment;
  return has("default") ? "default" : "development";
}
