/**
 * Every query key of the app, in one place: a screen reads under these keys, a change and the live
 * updates invalidate under the same ones. A key's first part names the resource; later parts narrow
 * it, so invalidating a prefix refreshes every narrower read (a project's flags on every page).
 */
export const keys = {
  currentUser: ["current-user"],
  projects: ["projects"],
  project: (projectId: string) => ["project", projectId],
  projectAccess: (projectId: string) => ["project-access", projectId],
  flags: (projectId: string) => ["flags", projectId],
  /** Every project's flags as the search API answers them (the overview across projects, the command menu). */
  flagSearch: ["flag-search"],
  /** One flag; `keys.flagsOf(projectId)` is the prefix of every flag of the project. */
  flag: (projectId: string, flag: string) => ["flag", projectId, flag],
  flagsOf: (projectId: string) => ["flag", projectId],
  flagEvents: (flag: string) => ["flag-events", flag],
  flagTags: (flag: string) => ["flag-tags", flag],
  flagUsage: (flag: string) => ["flag-usage", flag],
  archive: (projectId: string) => ["archive", projectId],
  changeRequests: (projectId: string) => ["change-requests", projectId],
  changeRequest: (projectId: string, id: number) => ["change-requests", projectId, id],
  /** Every project's change requests waiting for the signed-in person's review. */
  changeRequestsToReview: ["change-requests-to-review"],
  actionSets: (projectId: string) => ["action-sets", projectId],
  actionSetEvents: (projectId: string, id: number) => ["action-sets", projectId, id, "events"],
  actionSetChoices: (projectId: string) => ["action-set-choices", projectId],
  environments: ["environments"],
  strategyChoices: ["strategy-choices"],
  strategies: ["strategy-definitions"],
  segments: ["segments"],
  contextFields: ["context-fields"],
  tags: ["tags"],
  tagTypes: ["tag-types"],
  featureTypes: ["feature-types"],
  eventLog: ["event-log"],
  applications: ["applications"],
  addons: ["addons"],
  addonDeliveries: (id: number) => ["addons", id, "deliveries"],
  signalEndpoints: ["signal-endpoints"],
  signals: (id: number) => ["signal-endpoints", id, "signals"],
  apiTokens: ["api-tokens"],
  personalTokens: ["personal-access-tokens"],
  users: ["users"],
  roles: ["roles"],
  inviteLinks: ["invite-links"],
  serviceAccounts: ["service-accounts"],
  /** Every group; `[...keys.groups, "project-roles"]` is what each group holds in projects. */
  groups: ["groups"],
  samlSettings: ["saml-settings"],
  serviceAccountTokens: (id: number) => ["service-accounts", id, "tokens"],
} as const;
