import type { ClientFeature } from "@vexil/contracts";

/** A flag as the client API serves it: on for everyone through one `default` strategy, unless overridden. */
export function clientFeature(name: string, overrides: Partial<ClientFeature> = {}): ClientFeature {
  return {
    name,
    type: "release",
    description: null,
    project: "default",
    enabled: true,
    stale: false,
    impressionData: false,
    strategies: [{ name: "default", constraints: [], parameters: {} }],
    variants: [],
    ...overrides,
  };
}
