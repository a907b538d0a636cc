/** Unleash's permission names; a refused request's NoAccessError names the one it lacks. */
export const permissions = {
  admin: "ADMIN",
  read: "READ",
  createFeature: "CREATE_FEATURE",
  updateFeature: "UPDATE_FEATURE",
  deleteFeature: "DELETE_FEATURE",
  createFeatureStrategy: "CREATE_FEATURE_STRATEGY",
  updateFeatureStrategy: "UPDATE_FEATURE_STRATEGY",
  deleteFeatureStrategy: "DELETE_FEATURE_STRATEGY",
  updateFeatureEnvironment: "UPDATE_FEATURE_ENVIRONMENT",
  updateFeatureEnvironmentVariants: "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
  updateFeatureVariants: "UPDATE_FEATURE_VARIANTS",
  updateFeatureDependency: "UPDATE_FEATURE_DEPENDENCY",
  createProject: "CREATE_PROJECT",
  updateProject: "UPDATE_PROJECT",
  deleteProject: "DELETE_PROJECT",
  createSegment: "CREATE_SEGMENT",
  updateSegment: "UPDATE_SEGMENT",
  deleteSegment: "DELETE_SEGMENT",
  createStrategy: "CREATE_STRATEGY",
  updateStrategy: "UPDATE_STRATEGY",
  deleteStrategy: "DELETE_STRATEGY",
  createContextField: "CREATE_CONTEXT_FIELD",
  updateContextField: "UPDATE_CONTEXT_FIELD",
  deleteContextField: "DELETE_CONTEXT_FIELD",
  createTagType: "CREATE_TAG_TYPE",
  updateTagType: "UPDATE_TAG_TYPE",
  deleteTagType: "DELETE_TAG_TYPE",
  createEnvironment: "CREATE_ENVIRONMENT",
  updateEnvironment: "UPDATE_ENVIRONMENT",
  deleteEnvironment: "DELETE_ENVIRONMENT",
  createAddon: "CREATE_ADDON",
  updateAddon: "UPDATE_ADDON",
  deleteAddon: "DELETE_ADDON",
  createApiToken: "CREATE_API_TOKEN",
  readApiToken: "READ_API_TOKEN",
  updateApiToken: "UPDATE_API_TOKEN",
  deleteApiToken: "DELETE_API_TOKEN",
  createChangeRequest: "CREATE_CHANGE_REQUEST",
  approveChangeRequest: "APPROVE_CHANGE_REQUEST",
  applyChangeRequest: "APPLY_CHANGE_REQUEST",
  skipChangeRequest: "SKIP_CHANGE_REQUEST",
  updateApplication: "UPDATE_APPLICATION",
} as const;
export type Permission = (typeof permissions)[keyof typeof permissions];

/**
 * Where a scope value is read from the validated request: `params.projectId`, `query.project`,
 * `body.project`. `flag:params.featureName` is the project of the flag that field names.
 */
export type ScopeSource = `${"params" | "query" | "body"}.${string}`;
export interface AccessScopeSources {
  project?: ScopeSource | `flag:${ScopeSource}`;
  environment?: ScopeSource;
}

/** A route's access rule: the permission it needs and where its scope comes from. */
export interface RouteAccess<P extends Permission = Permission> {
  permission: P;
  scope?: AccessScopeSources;
}
/**
 * A route the contract cannot guard: public, or its handler checks because the body decides the
 * permission. `reason` says which.
 */
export interface UnguardedRouteAccess {
  permission: "none";
  reason: string;
}
export type RouteAccessRule = RouteAccess | UnguardedRouteAccess;

/** `metadata: requires(permissions.read, { project: "params.projectId" })`. */
export function requires<const P extends Permission>(permission: P, scope?: AccessScopeSources): { access: RouteAccess<P> } {
  return { access: scope ? { permission, scope } : { permission } };
}

/** `metadata: unguarded("the permission depends on the token type in the body")`. */
export function unguarded(reason: string): { access: UnguardedRouteAccess } {
  return { access: { permission: "none", reason } };
}

/** The access rule a route declares, if any (route metadata is untyped in ts-rest). */
export function routeAccessOf(route: { metadata?: unknown }): RouteAccessRule | undefined {
  const metadata = route.metadata as { access?: RouteAccessRule } | undefined;
  return metadata?.access;
}
