/**
 * Sets flags up through the public admin API, as an operator's script would: used by the
 * end-to-end tests and the benchmark.
 */
export type AdminCall = (path: string, init?: { method?: string; body?: unknown }) => Promise<Response>;

export interface StrategyInput {
  name: string;
  title?: string;
  disabled?: boolean;
  sortOrder?: number;
  parameters?: Record<string, string>;
  constraints?: unknown[];
  segments?: number[];
  variants?: unknown[];
}

async function expectOk(res: Response, what: string): Promise<Response> {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res;
}

export function flagAdmin(call: AdminCall, project = "default") {
  const feature = (name: string) => `/api/admin/projects/${project}/features/${encodeURIComponent(name)}`;
  return {
    async createFeature(name: string, fields: { type?: string; description?: string; impressionData?: boolean } = {}) {
      await expectOk(
        await call(`/api/admin/projects/${project}/features`, { method: "POST", body: { name, ...fields } }),
        `create ${name}`,
      );
    },
    async addStrategy(name: string, environment: string, strategy: StrategyInput): Promise<{ id: string }> {
      const res = await call(`${feature(name)}/environments/${environment}/strategies`, { method: "POST", body: strategy });
      return (await expectOk(res, `strategy on ${name}`)).json() as Promise<{ id: string }>;
    },
    async updateStrategy(name: string, environment: string, id: string, strategy: StrategyInput) {
      const res = await call(`${feature(name)}/environments/${environment}/strategies/${id}`, { method: "PUT", body: strategy });
      await expectOk(res, `update strategy on ${name}`);
    },
    async setVariants(name: string, environment: string, variants: unknown[]) {
      await expectOk(
        await call(`${feature(name)}/environments/${environment}/variants`, { method: "PUT", body: variants }),
        `variants of ${name}`,
      );
    },
    async setEnabled(name: string, environment: string, enabled: boolean) {
      await expectOk(
        await call(`${feature(name)}/environments/${environment}/${enabled ? "on" : "off"}`, { method: "POST" }),
        `switch ${name}`,
      );
    },
    async addDependency(child: string, dependency: { feature: string; enabled?: boolean; variants?: string[] }) {
      await expectOk(await call(`${feature(child)}/dependencies`, { method: "POST", body: dependency }), `dependency of ${child}`);
    },
    async archive(name: string) {
      await expectOk(await call(feature(name), { method: "DELETE" }), `archive ${name}`);
    },
    async createSegment(name: string, constraints: unknown[]): Promise<number> {
      const res = await expectOk(await call("/api/admin/segments", { method: "POST", body: { name, constraints } }), `segment ${name}`);
      return ((await res.json()) as { id: number }).id;
    },
  };
}
