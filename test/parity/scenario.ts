/**
 * The scripted admin calls the parity harness sends to both servers, in order: a realistic flag mix
 * over three projects (rollouts, constraints with every operator, case-insensitive, inverted, dates
 * and semver, segments, strategy and environment variants, dependencies, archived and stale flags)
 * and the calls around it that users make (reads, updates, patches, tags, refusals).
 *
 * A step's path and body may hold `{{name}}` placeholders for values an earlier step captured from
 * its own server's answer (segment ids, strategy ids, invite secrets), so the same script runs on
 * both although their ids differ.
 */
import type { TokenKind } from "./servers.js";

export interface Step {
  /** Unique; DIFFERENCES.md names steps by it. */
  label: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  token?: TokenKind;
  /** placeholder name → top-level field of the answer, kept for later steps. */
  capture?: Record<string, string>;
}

/** Projects created before the script runs (see ParityTarget.createProject). */
export const parityProjects = ["shop", "ops"] as const;

const feature = (project: string, name: string) => `/api/admin/projects/${project}/features/${name}`;
const environment = (project: string, name: string, env = "development") => `${feature(project, name)}/environments/${env}`;
const variant = (name: string, weight: number, weightType: "variable" | "fix", extra: Record<string, unknown> = {}) => ({
  name,
  weight,
  weightType,
  stickiness: "default",
  ...extra,
});
const rollout = (percentage: number, stickiness: string, groupId: string) => ({
  rollout: String(percentage),
  stickiness,
  groupId,
});
const constraint = (contextName: string, operator: string, values: string[] | string, more: Record<string, unknown> = {}) =>
  Array.isArray(values) ? { contextName, operator, values, ...more } : { contextName, operator, value: values, ...more };

/** Creates a flag, adds its strategies and switches it on in development: the steps of one flag. */
export function flag(
  project: string,
  name: string,
  strategies: Array<Record<string, unknown>>,
  { enabled = true, type = "release", captureFirstStrategy }: { enabled?: boolean; type?: string; captureFirstStrategy?: string } = {},
): Step[] {
  const steps: Step[] = [
    { label: `create flag ${name}`, method: "POST", path: `/api/admin/projects/${project}/features`, body: { name, type } },
  ];
  strategies.forEach((strategy, index) => {
    steps.push({
      label: `add strategy ${index} to ${name}`,
      method: "POST",
      path: `${environment(project, name)}/strategies`,
      body: { constraints: [], ...strategy },
      ...(index === 0 && captureFirstStrategy ? { capture: { [captureFirstStrategy]: "id" } } : {}),
    });
  });
  if (enabled) steps.push({ label: `switch on ${name}`, method: "POST", path: `${environment(project, name)}/on` });
  return steps;
}

export const scenario: Step[] = [
  // ---- segments and context -------------------------------------------------------------------
  {
    label: "create segment beta-users",
    method: "POST",
    path: "/api/admin/segments",
    body: { name: "beta-users", constraints: [constraint("userId", "IN", ["user-3", "user-7", "user-11", "user-42"])] },
    capture: { betaSegment: "id" },
  },
  {
    label: "create segment eu",
    method: "POST",
    path: "/api/admin/segments",
    body: {
      name: "eu",
      description: "European customers",
      constraints: [constraint("country", "IN", ["DE", "FR", "NL", "SE"], { caseInsensitive: true })],
    },
    capture: { euSegment: "id" },
  },
  { label: "list segments", method: "GET", path: "/api/admin/segments" },
  { label: "get segment eu", method: "GET", path: "/api/admin/segments/{{euSegment}}" },
  { label: "list context fields", method: "GET", path: "/api/admin/context" },
  { label: "list strategy definitions", method: "GET", path: "/api/admin/strategies" },

  // ---- the flag mix -----------------------------------------------------------------------------
  ...flag(
    "default",
    "checkout-v2",
    [
      {
        name: "flexibleRollout",
        parameters: rollout(60, "userId", "checkout-v2"),
        variants: [variant("control", 334, "variable"), variant("blue", 333, "variable"), variant("green", 333, "variable")],
      },
    ],
    { type: "experiment", captureFirstStrategy: "checkoutStrategy" },
  ),
  ...flag("default", "dark-mode", [
    {
      name: "default",
      constraints: [
        constraint("plan", "IN", ["pro", "enterprise"]),
        constraint("email", "STR_ENDS_WITH", ["@EXAMPLE.com"], { caseInsensitive: true }),
      ],
    },
    {
      name: "flexibleRollout",
      parameters: rollout(100, "default", "dark-mode"),
      constraints: [constraint("userId", "IN", ["user-1", "user-2", "user-5"])],
    },
  ]),
  ...flag("default", "new-search", [
    {
      name: "flexibleRollout",
      parameters: rollout(35, "sessionId", "new-search"),
      constraints: [constraint("country", "NOT_IN", ["us", "ca"])],
      segments: ["{{euSegment}}"],
    },
  ]),
  ...flag("default", "beta-dashboard", [
    { name: "flexibleRollout", parameters: rollout(100, "default", "beta-dashboard"), segments: ["{{betaSegment}}"] },
    {
      name: "flexibleRollout",
      title: "staff",
      parameters: rollout(100, "default", "beta-dashboard"),
      constraints: [constraint("email", "STR_CONTAINS", ["@vexil.dev", "@staff."]), constraint("plan", "IN", ["free"], { inverted: true })],
    },
  ]),
  ...flag("default", "legacy-export", [{ name: "default" }], { enabled: false, type: "kill-switch" }),
  ...flag("default", "checkout-v2-banner", [{ name: "default" }]),
  ...flag("default", "winter-sale", [{ name: "default" }]),
  ...flag("default", "dark-mode-tips", [{ name: "flexibleRollout", parameters: rollout(50, "default", "tips") }]),

  ...flag("shop", "pricing-page", [{ name: "flexibleRollout", parameters: rollout(100, "userId", "pricing-page") }], {
    type: "experiment",
  }),
  ...flag("shop", "age-gate", [
    {
      name: "default",
      constraints: [
        constraint("age", "NUM_GTE", "18"),
        constraint("age", "NUM_LT", "65"),
        constraint("age", "NUM_EQ", "30", { inverted: true }),
      ],
    },
    { name: "default", constraints: [constraint("age", "NUM_GT", "90"), constraint("age", "NUM_LTE", "120")] },
  ]),
  ...flag("shop", "app-version-gate", [
    {
      name: "flexibleRollout",
      parameters: rollout(80, "default", "app-version-gate"),
      constraints: [constraint("appVersion", "SEMVER_GT", "2.0.0"), constraint("appVersion", "SEMVER_LT", "3.0.0-beta.2")],
    },
    { name: "default", constraints: [constraint("appVersion", "SEMVER_EQ", "1.9.3")] },
  ]),
  ...flag("shop", "store-locator", [
    {
      name: "default",
      constraints: [
        constraint("city", "STR_STARTS_WITH", ["ber", "MUN"], { caseInsensitive: true }),
        constraint("city", "STR_ENDS_WITH", ["-test"], { inverted: true }),
      ],
    },
  ]),
  ...flag("ops", "maintenance-banner", [
    {
      name: "default",
      constraints: [
        constraint("currentTime", "DATE_AFTER", "2020-01-01T00:00:00.000Z"),
        constraint("currentTime", "DATE_BEFORE", "2030-06-01T00:00:00.000Z"),
      ],
    },
  ]),
  ...flag("ops", "winter-sale", [
    { name: "default", constraints: [constraint("currentTime", "DATE_AFTER", "2031-01-01T00:00:00.000Z", { inverted: true })] },
  ]),
  ...flag("ops", "internal-tools", [
    { name: "remoteAddress", parameters: { IPs: "10.0.0.1, 192.168.1.0/24" } },
    { name: "default", constraints: [constraint("appName", "IN", ["admin-console"]), constraint("environment", "IN", ["development"])] },
  ]),
  ...flag("ops", "gradual-migration", [
    {
      name: "flexibleRollout",
      parameters: rollout(25, "default", "gradual-migration"),
      variants: [
        variant("v1", 100, "fix", { payload: { type: "string", value: "legacy" } }),
        variant("v3", 0, "variable", { payload: { type: "json", value: '{"batch":3}' } }),
        variant("v2", 0, "variable", { payload: { type: "number", value: "2" } }),
      ],
    },
  ]),
  ...flag("ops", "disabled-strategy", [
    { name: "default", disabled: true },
    { name: "default", constraints: [constraint("userId", "IN", ["user-9"])] },
  ]),

  // ---- variants, dependencies, tags -------------------------------------------------------------
  {
    label: "set environment variants of pricing-page",
    method: "PUT",
    path: `${environment("shop", "pricing-page")}/variants`,
    body: [
      variant("trial", 0, "variable", { payload: { type: "string", value: "14 days" } }),
      variant("premium", 200, "fix", { overrides: [{ contextName: "userId", values: ["user-1", "user-2"] }] }),
      variant("basic", 0, "variable", { stickiness: "userId" }),
    ],
  },
  { label: "get environment variants of pricing-page", method: "GET", path: `${environment("shop", "pricing-page")}/variants` },
  {
    label: "patch environment variants of pricing-page",
    method: "PATCH",
    path: `${environment("shop", "pricing-page")}/variants`,
    body: [{ op: "add", path: "/-", value: variant("enterprise", 0, "variable") }],
  },
  {
    label: "set environment variants of dark-mode in production",
    method: "PUT",
    path: `${environment("default", "dark-mode", "production")}/variants`,
    body: [variant("dim", 0, "variable"), variant("black", 0, "variable")],
  },
  {
    label: "add dependency checkout-v2-banner on checkout-v2 blue",
    method: "POST",
    path: `${feature("default", "checkout-v2-banner")}/dependencies`,
    body: { feature: "checkout-v2", variants: ["blue"] },
  },
  {
    label: "add dependency dark-mode-tips on dark-mode off",
    method: "POST",
    path: `${feature("default", "dark-mode-tips")}/dependencies`,
    body: { feature: "dark-mode", enabled: false },
  },
  { label: "create tag type team", method: "POST", path: "/api/admin/tag-types", body: { name: "team", description: "Owning team" } },
  { label: "tag checkout-v2", method: "POST", path: "/api/admin/features/checkout-v2/tags", body: { type: "team", value: "payments" } },
  { label: "list tags of checkout-v2", method: "GET", path: "/api/admin/features/checkout-v2/tags" },

  // ---- reads and updates ------------------------------------------------------------------------
  {
    label: "update strategy of checkout-v2",
    method: "PUT",
    path: `${environment("default", "checkout-v2")}/strategies/{{checkoutStrategy}}`,
    body: {
      name: "flexibleRollout",
      constraints: [],
      parameters: rollout(70, "userId", "checkout-v2"),
      variants: [
        variant("control", 500, "fix"),
        variant("purple", 0, "variable"),
        variant("blue", 0, "variable"),
        variant("green", 0, "variable"),
      ],
    },
  },
  { label: "get strategy of checkout-v2", method: "GET", path: `${environment("default", "checkout-v2")}/strategies/{{checkoutStrategy}}` },
  { label: "list strategies of dark-mode", method: "GET", path: `${environment("default", "dark-mode")}/strategies` },
  {
    label: "add a link to checkout-v2",
    method: "POST",
    path: `${feature("default", "checkout-v2")}/link`,
    body: { url: "github.com/acme/shop/issues/42", title: "Rollout plan" },
  },
  { label: "get flag checkout-v2", method: "GET", path: feature("default", "checkout-v2") },
  { label: "get flag pricing-page", method: "GET", path: feature("shop", "pricing-page") },
  {
    label: "patch description of age-gate",
    method: "PATCH",
    path: feature("shop", "age-gate"),
    body: [{ op: "replace", path: "/description", value: "Adults only" }],
  },
  { label: "mark store-locator stale", method: "POST", path: `${feature("shop", "store-locator")}/stale/on` },
  { label: "list flags of project shop", method: "GET", path: "/api/admin/projects/shop/features" },
  { label: "get project ops", method: "GET", path: "/api/admin/projects/ops" },
  { label: "health report of default", method: "GET", path: "/api/admin/projects/default/health-report" },
  { label: "archive legacy-export", method: "DELETE", path: feature("default", "legacy-export") },
  // Archived while on, revived: off in every environment (the SDK checks below ask about it).
  { label: "archive winter-sale", method: "DELETE", path: feature("default", "winter-sale") },
  { label: "revive winter-sale", method: "POST", path: "/api/admin/archive/revive/winter-sale" },
  { label: "get flag winter-sale after reviving", method: "GET", path: feature("default", "winter-sale") },
  { label: "get flag environment of dark-mode", method: "GET", path: environment("default", "dark-mode") },
  { label: "switch on dark-mode in production", method: "POST", path: `${environment("default", "dark-mode", "production")}/on` },
  { label: "switch off dark-mode in production", method: "POST", path: `${environment("default", "dark-mode", "production")}/off` },
  { label: "unmark store-locator stale", method: "POST", path: `${feature("shop", "store-locator")}/stale/off` },
  { label: "clone dark-mode", method: "POST", path: `${feature("default", "dark-mode")}/clone`, body: { name: "dark-mode-copy" } },
  {
    label: "update segment eu",
    method: "PUT",
    path: "/api/admin/segments/{{euSegment}}",
    body: { name: "eu", constraints: [constraint("country", "IN", ["DE", "FR", "NL", "SE", "AT"], { caseInsensitive: true })] },
  },
  {
    label: "validate archiving checkout-v2",
    method: "POST",
    path: "/api/admin/projects/default/archive/validate",
    body: { features: ["checkout-v2"] },
  },
  {
    label: "create context field tier",
    method: "POST",
    path: "/api/admin/context",
    body: { name: "tier", description: "Customer tier", legalValues: [{ value: "gold" }, { value: "silver" }] },
  },
  {
    label: "create client token for shop",
    method: "POST",
    path: "/api/admin/api-tokens",
    body: { tokenName: "shop-backend", type: "client", environment: "development", projects: ["shop"] },
  },
  { label: "list projects", method: "GET", path: "/api/admin/projects" },
  { label: "list environments", method: "GET", path: "/api/admin/environments" },
  { label: "list tag types", method: "GET", path: "/api/admin/tag-types" },
  { label: "list feature types", method: "GET", path: "/api/admin/feature-types" },
  { label: "search flags", method: "GET", path: "/api/admin/search/features?query=dark" },
  { label: "validate a free flag name", method: "POST", path: "/api/admin/features/validate", body: { name: "brand-new" } },
  { label: "overview of project shop", method: "GET", path: "/api/admin/projects/shop/overview" },
  {
    label: "playground for user-42 in development",
    method: "POST",
    path: "/api/admin/playground",
    body: {
      environment: "development",
      projects: "*",
      context: { appName: "parity", userId: "user-42", properties: { region: "EU", tier: "gold" } },
    },
  },

  // ---- refusals -----------------------------------------------------------------------------------
  { label: "switch on archived legacy-export", method: "POST", path: `${environment("default", "legacy-export")}/on` },
  { label: "create duplicate flag", method: "POST", path: "/api/admin/projects/default/features", body: { name: "dark-mode" } },
  { label: "create flag with bad name", method: "POST", path: "/api/admin/projects/default/features", body: { name: "a b/c" } },
  { label: "get unknown flag", method: "GET", path: feature("default", "no-such-flag") },
  {
    label: "add strategy of unknown kind",
    method: "POST",
    path: `${environment("default", "dark-mode")}/strategies`,
    body: { name: "no-such-strategy", constraints: [], parameters: {} },
  },
  {
    label: "add strategy with bad semver",
    method: "POST",
    path: `${environment("default", "dark-mode")}/strategies`,
    body: { name: "default", constraints: [constraint("appVersion", "SEMVER_GT", "two")], parameters: {} },
  },
  {
    label: "set variants without a variable one",
    method: "PUT",
    path: `${environment("shop", "pricing-page")}/variants`,
    body: [variant("only", 500, "fix")],
  },
  {
    label: "patch variants through the flag",
    method: "PATCH",
    path: feature("default", "dark-mode"),
    body: [{ op: "add", path: "/variants/-", value: variant("x", 0, "variable") }],
  },
  { label: "create tag without type", method: "POST", path: "/api/admin/tags", body: { value: "orphan" } },
  { label: "validate a taken flag name", method: "POST", path: "/api/admin/features/validate", body: { name: "dark-mode" } },
  { label: "create flag in unknown project", method: "POST", path: "/api/admin/projects/nowhere/features", body: { name: "lost" } },
  { label: "switch on in unknown environment", method: "POST", path: `${environment("default", "dark-mode", "staging-x")}/on` },
  { label: "create segment with taken name", method: "POST", path: "/api/admin/segments", body: { name: "eu", constraints: [] } },
  {
    label: "add dependency on unknown flag",
    method: "POST",
    path: `${feature("default", "checkout-v2-banner")}/dependencies`,
    body: { feature: "no-such-parent" },
  },
  {
    label: "tag with unknown tag type",
    method: "POST",
    path: "/api/admin/features/checkout-v2/tags",
    body: { type: "no-such-type", value: "x1" },
  },
  {
    label: "set variants with fix weights over 1000",
    method: "PUT",
    path: `${environment("shop", "pricing-page")}/variants`,
    body: [variant("a", 700, "fix"), variant("b", 400, "fix"), variant("c", 0, "variable")],
  },
  {
    label: "create token of unknown type",
    method: "POST",
    path: "/api/admin/api-tokens",
    body: { tokenName: "odd", type: "superuser", environment: "development", projects: ["*"] },
  },
  {
    label: "create invite link",
    method: "POST",
    path: "/api/admin/invite-link/tokens",
    body: { name: "parity-invite", expiresAt: "2099-01-01T00:00:00.000Z" },
    capture: { inviteSecret: "secret" },
  },
  {
    label: "update invite link with unknown property",
    method: "PUT",
    path: "/api/admin/invite-link/tokens/{{inviteSecret}}",
    body: { expiresAt: "2098-01-01T00:00:00.000Z", colour: "red" },
  },
  { label: "read flags without token", method: "GET", path: "/api/admin/projects/default/features", token: "none" },
  { label: "read admin API with client token", method: "GET", path: "/api/admin/projects/default/features", token: "client" },
  {
    label: "signal without token to unknown endpoint",
    method: "POST",
    path: "/api/signal-endpoint/no-such-endpoint",
    body: {},
    token: "none",
  },
  {
    label: "add userWithId strategy",
    method: "POST",
    path: `${environment("default", "dark-mode")}/strategies`,
    body: { name: "userWithId", constraints: [], parameters: { userIds: "user-1" } },
  },
  { label: "create project through the API", method: "POST", path: "/api/admin/projects", body: { id: "extra", name: "extra" } },
];

/** The flags of the mix (archived and off ones included): what the SDK checks ask about. */
export const scenarioFlags: string[] = scenario.flatMap((step) => {
  const name = (step.body as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && step.label === `create flag ${name}` ? [name] : [];
});
