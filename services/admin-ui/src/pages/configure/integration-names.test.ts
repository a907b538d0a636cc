import type { Addon, AddonProviderDefinition } from "@vexil/contracts";
import { describe, expect, it } from "vitest";
import { integrationNames } from "./integration-names.js";

const providers = [
  { name: "webhook", displayName: "Webhook" },
  { name: "slack", displayName: "Slack" },
] as AddonProviderDefinition[];
const addon = (id: number, provider: string, description: string | null): Addon => ({
  id,
  provider,
  description,
  enabled: true,
  parameters: {},
  events: [],
});

describe("integrationNames", () => {
  it("names an integration by its description, else by its provider, adding the number only where two read the same", () => {
    const names = integrationNames(
      [addon(1, "webhook", "Orders hook"), addon(2, "slack", null), addon(3, "webhook", null), addon(4, "webhook", "  ")],
      providers,
    );
    expect([...names]).toEqual([
      [1, "Orders hook"],
      [2, "Slack"],
      [3, "Webhook #3"],
      [4, "Webhook #4"],
    ]);
  });
});
