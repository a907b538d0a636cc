/**
 * Builds a realistic project through the admin API, the way a team would set one up by hand or
 * from a script: 3 environments (development, staging, production), 20 flags with strategies,
 * constraints of several operators, segments (global and project-specific), strategy and
 * environment variants, tags, a custom context field, and parent/child dependencies. Everything
 * goes through the public API; a failing call stops the run with the status and error body.
 *
 *   npx tsx --conditions=vexil-source test/seed/realistic-project.ts <baseUrl> <adminToken> [projectId]
 *
 * e.g. against `PORT=4242 DATA_DIR=$(mktemp -d) npm start`:
 *   npx tsx --conditions=vexil-source test/seed/realistic-project.ts http://localhost:4242 '*:*.<secret>'
 *
 * The project id defaults to `webshop` and must not exist yet; shared things (the staging
 * environment, the `tenant` context field, the `team` tag type) are reused when present.
 */
import { featureSchema, segmentSchema, type Constraint, type Feature } from "@vexil/contracts";

const [baseUrl, adminToken, projectId = "webshop"] = process.argv.slice(2);
if (!baseUrl || !adminToken) {
  console.error("usage: realistic-project.ts <baseUrl> <adminToken> [projectId]");
  process.exit(2);
}

async function api(method: string, path: string, body?: unknown, { allow = [] as number[] } = {}): Promise<unknown> {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: adminToken as string, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok && !allow.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const project = `/api/admin/projects/${projectId}`;
const environments = ["development", "staging", "production"] as const;
type Environment = (typeof environments)[number];

// ---- shared definitions ------------------------------------------------------------------------

await api("POST", "/api/admin/environments", { name: "staging", type: "test" }, { allow: [409] });
await api(
  "POST",
  "/api/admin/context",
  {
    name: "tenant",
    description: "The customer account a request belongs to",
    stickiness: true,
    legalValues: [{ value: "acme", description: "Acme Corp" }, { value: "globex" }, { value: "initech" }, { value: "umbrella" }],
  },
  { allow: [409] },
);
await api("POST", "/api/admin/tag-types", { name: "team", description: "The team that owns the flag", icon: "group" }, { allow: [409] });

await api("POST", "/api/admin/projects", {
  id: projectId,
  name: "Webshop",
  description: "Storefront, checkout and account pages",
  environments: [...environments],
});

// ---- segments ----------------------------------------------------------------------------------

async function segment(name: string, constraints: Constraint[], options: { project?: string; description?: string } = {}) {
  return segmentSchema.parse(await api("POST", "/api/admin/segments", { name: `${projectId}-${name}`, constraints, ...options })).id;
}
const betaTesters = await segment(
  "beta-testers",
  [{ contextName: "userId", operator: "IN", values: ["u-1001", "u-1002", "u-1003", "u-1004"] }],
  {
    description: "People who opted into early features",
  },
);
const staff = await segment("staff", [
  { contextName: "email", operator: "STR_ENDS_WITH", values: ["@webshop.example"], caseInsensitive: true },
]);
const bigTenants = await segment("big-tenants", [{ contextName: "tenant", operator: "IN", values: ["acme", "globex"] }], {
  project: projectId,
  description: "Accounts on the enterprise plan",
});
const modernApps = await segment("modern-apps", [{ contextName: "appVersion", operator: "SEMVER_GT", value: "4.2.0" }], {
  project: projectId,
});

// ---- flags -------------------------------------------------------------------------------------

interface FlagPlan {
  name: string;
  type: "release" | "experiment" | "operational" | "kill-switch" | "permission";
  description: string;
  team: string;
  /** Rollout percentage per environment; an environment without one keeps no strategy and stays off. */
  rollout: Partial<Record<Environment, number>>;
  constraints?: Constraint[];
  segments?: number[];
  /** Environment-level variants (PUT .../environments/:environment/variants), the same in every environment the flag runs in. */
  variants?: { name: string; weight: number; weightType: "variable" | "fix"; payload?: { type: "json" | "string"; value: string } }[];
  /** Variants on the flexibleRollout strategy itself. */
  strategyVariants?: { name: string; weight: number; weightType: "variable" | "fix"; stickiness: string }[];
  parent?: { feature: string; enabled?: boolean; variants?: string[] };
  userIds?: string[];
}

const everywhere = { development: 100, staging: 100, production: 100 };
const plans: FlagPlan[] = [
  {
    name: "new-checkout",
    type: "release",
    description: "One-page checkout",
    team: "payments",
    rollout: { development: 100, staging: 100, production: 25 },
    segments: [betaTesters],
  },
  {
    name: "new-checkout-apple-pay",
    type: "release",
    description: "Apple Pay in the new checkout",
    team: "payments",
    rollout: { development: 100, staging: 50 },
    constraints: [{ contextName: "userAgent", operator: "STR_CONTAINS", values: ["Safari"] }],
    parent: { feature: "new-checkout" },
  },
  {
    name: "new-checkout-upsell",
    type: "experiment",
    description: "Upsell box in the new checkout",
    team: "growth",
    rollout: { development: 100, staging: 100, production: 50 },
    variants: [
      { name: "accessories", weight: 500, weightType: "variable", payload: { type: "string", value: "accessories" } },
      { name: "warranty", weight: 500, weightType: "variable", payload: { type: "string", value: "warranty" } },
    ],
    parent: { feature: "new-checkout", enabled: true },
  },
  {
    name: "search-ranking",
    type: "experiment",
    description: "Ranking model for product search",
    team: "search",
    rollout: everywhere,
    variants: [
      { name: "control", weight: 200, weightType: "fix", payload: { type: "json", value: '{"model":"bm25"}' } },
      { name: "semantic", weight: 400, weightType: "variable", payload: { type: "json", value: '{"model":"embeddings-v2"}' } },
      { name: "hybrid", weight: 400, weightType: "variable", payload: { type: "json", value: '{"model":"hybrid"}' } },
    ],
  },
  {
    name: "search-ranking-explain",
    type: "operational",
    description: "Explain scores in search results",
    team: "search",
    rollout: { development: 100 },
    segments: [staff],
    parent: { feature: "search-ranking", enabled: true, variants: ["semantic", "hybrid"] },
  },
  {
    name: "recommendations-carousel",
    type: "release",
    description: "Recommended products on the home page",
    team: "growth",
    rollout: { development: 100, staging: 100, production: 10 },
  },
  {
    name: "enterprise-invoicing",
    type: "permission",
    description: "Invoices instead of card payments",
    team: "payments",
    rollout: everywhere,
    segments: [bigTenants],
  },
  {
    name: "bulk-order-upload",
    type: "permission",
    description: "CSV upload for large orders",
    team: "b2b",
    rollout: everywhere,
    constraints: [{ contextName: "tenant", operator: "IN", values: ["acme", "initech"] }],
  },
  {
    name: "payment-provider-fallback",
    type: "kill-switch",
    description: "Route card payments to the backup provider",
    team: "payments",
    rollout: { development: 100, staging: 100 },
  },
  {
    name: "image-cdn-v2",
    type: "operational",
    description: "Serve product images from the new CDN",
    team: "platform",
    rollout: { development: 100, staging: 100, production: 75 },
  },
  {
    name: "black-friday-banner",
    type: "release",
    description: "Banner for the sale weekend",
    team: "marketing",
    rollout: everywhere,
    constraints: [
      { contextName: "currentTime", operator: "DATE_AFTER", value: "2025-11-28T00:00:00.000Z" },
      { contextName: "currentTime", operator: "DATE_BEFORE", value: "2025-12-02T00:00:00.000Z" },
    ],
  },
  {
    name: "mobile-app-redesign",
    type: "release",
    description: "New navigation in the mobile app",
    team: "mobile",
    rollout: { development: 100, staging: 100, production: 20 },
    segments: [modernApps],
    strategyVariants: [
      { name: "tabs", weight: 500, weightType: "variable", stickiness: "userId" },
      { name: "drawer", weight: 500, weightType: "variable", stickiness: "userId" },
    ],
  },
  {
    name: "loyalty-points",
    type: "release",
    description: "Points on every order",
    team: "growth",
    rollout: { development: 100, staging: 100 },
    constraints: [{ contextName: "orderCount", operator: "NUM_GTE", value: "3" }],
  },
  { name: "gift-cards", type: "release", description: "Sell and redeem gift cards", team: "payments", rollout: { development: 100 } },
  {
    name: "address-autocomplete",
    type: "experiment",
    description: "Autocomplete addresses at checkout",
    team: "payments",
    rollout: { development: 100, staging: 100, production: 50 },
    constraints: [{ contextName: "country", operator: "IN", values: ["NO", "SE", "DK", "DE"] }],
  },
  { name: "maintenance-mode", type: "kill-switch", description: "Show the maintenance page", team: "platform", rollout: {} },
  {
    name: "internal-debug-panel",
    type: "operational",
    description: "Debug panel for staff",
    team: "platform",
    rollout: everywhere,
    segments: [staff],
    constraints: [{ contextName: "remoteAddress", operator: "IN_CIDR", values: ["10.0.0.0/8", "192.168.0.0/16"] }],
  },
  {
    name: "reviews-with-photos",
    type: "release",
    description: "Photos in product reviews",
    team: "growth",
    rollout: { development: 100, staging: 100 },
    userIds: ["u-1001", "u-2002"],
  },
  {
    name: "wishlist-sharing",
    type: "release",
    description: "Share a wishlist by link",
    team: "growth",
    rollout: { development: 100, staging: 30 },
    constraints: [{ contextName: "email", operator: "REGEX", value: "^[^@]+@(gmail|outlook)\\.com$", caseInsensitive: true }],
  },
  {
    name: "wishlist-sharing-social",
    type: "release",
    description: "Share a wishlist on social networks",
    team: "growth",
    rollout: { development: 100 },
    parent: { feature: "wishlist-sharing", enabled: false },
  },
];

for (const plan of plans) {
  const flag = `${project}/features/${plan.name}`;
  await api("POST", `${project}/features`, { name: plan.name, type: plan.type, description: plan.description });
  for (const environment of environments) {
    const rollout = plan.rollout[environment];
    if (rollout === undefined) continue;
    await api("POST", `${flag}/environments/${environment}/strategies`, {
      name: "flexibleRollout",
      title: `${rollout}% in ${environment}`,
      parameters: { rollout: String(rollout), stickiness: "default", groupId: plan.name },
      constraints: plan.constraints ?? [],
      segments: plan.segments ?? [],
      variants: plan.strategyVariants ?? [],
    });
    if (plan.userIds)
      await api("POST", `${flag}/environments/${environment}/strategies`, {
        name: "userWithId",
        parameters: { userIds: plan.userIds.join(",") },
      });
    if (plan.variants) {
      await api(
        "PUT",
        `${flag}/environments/${environment}/variants`,
        plan.variants.map((v) => ({ ...v, stickiness: "default" })),
      );
    }
    await api("POST", `${flag}/environments/${environment}/on`);
  }
  await api("POST", `/api/admin/features/${plan.name}/tags`, { type: "team", value: plan.team });
  await api("POST", `/api/admin/features/${plan.name}/tags`, { type: "simple", value: plan.type });
}

// Parents exist now; children get their dependency.
for (const plan of plans) {
  if (plan.parent) await api("POST", `${project}/features/${plan.name}/dependencies`, plan.parent);
}
await api("POST", `${project}/features/gift-cards/lifecycle/complete`, { status: "kept" });

// ---- what was built ----------------------------------------------------------------------------

const features = await Promise.all(plans.map(async (plan) => featureSchema.parse(await api("GET", `${project}/features/${plan.name}`))));
const strategyCount = (f: Feature) => (f.environments ?? []).reduce((n, e) => n + (e.strategies?.length ?? 0), 0);
const summary = {
  project: projectId,
  environments: [...environments],
  flags: features.length,
  strategies: features.reduce((n, f) => n + strategyCount(f), 0),
  constrainedStrategies: features.reduce(
    (n, f) => n + (f.environments ?? []).flatMap((e) => e.strategies ?? []).filter((s) => (s.constraints?.length ?? 0) > 0).length,
    0,
  ),
  segments: [betaTesters, staff, bigTenants, modernApps].length,
  flagsWithVariants: features.filter((f) => (f.environments ?? []).some((e) => (e.variants?.length ?? 0) > 0)).length,
  dependencies: features.filter((f) => (f.dependencies?.length ?? 0) > 0).map((f) => `${f.name} -> ${f.dependencies?.[0]?.feature}`),
  enabledInProduction: features.filter((f) => f.environments?.find((e) => e.name === "production")?.enabled).map((f) => f.name),
  lifecycle: Object.fromEntries(features.map((f) => [f.name, f.lifecycle?.stage])),
};
console.log(JSON.stringify(summary, null, 2));
