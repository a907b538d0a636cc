import type { Addon, AddonProviderDefinition } from "@vexil/contracts";

export function providerName(addon: Addon, providers: AddonProviderDefinition[]): string {
  return providers.find((p) => p.name === addon.provider)?.displayName ?? addon.provider;
}

/**
 * What each integration is called on the screen and in its buttons' names: its description, or its
 * provider's name; the number is added only where two would read the same.
 */
export function integrationNames(addons: Addon[], providers: AddonProviderDefinition[]): Map<number, string> {
  const base = new Map(addons.map((addon) => [addon.id, addon.description?.trim() || providerName(addon, providers)]));
  const count = new Map<string, number>();
  for (const name of base.values()) count.set(name, (count.get(name) ?? 0) + 1);
  return new Map([...base].map(([id, name]) => [id, count.get(name)! > 1 ? `${name} #${id}` : name]));
}
