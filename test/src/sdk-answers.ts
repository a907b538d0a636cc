/**
 * What the SDKs see from a server, in a form two servers can be compared by: the client flag set,
 * the frontend API's answers and the server SDK's evaluations over many contexts.
 */
import type { Context, Unleash } from "unleash-client";

export interface SdkContext extends Context {
  userId: string;
  properties: Record<string, string>;
}

/** `count` users spread over the values of one custom property. */
export function sdkContexts(count: number, property: string, values: readonly string[]): SdkContext[] {
  return Array.from({ length: count }, (_, i) => ({ userId: `u${i}`, properties: { [property]: values[i % values.length]! } }));
}

async function okJson(res: Response, what: string): Promise<any> {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** `/api/client/features` with flags in name order; strategy ids dropped when `withoutIds` (they differ between installations). */
export async function clientFeatures(url: string, token: string, { withoutIds = false } = {}): Promise<unknown> {
  const body = await okJson(await fetch(`${url}/api/client/features`, { headers: { authorization: token } }), "client features");
  const features = [...body.features]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => (withoutIds ? { ...f, strategies: f.strategies.map(({ id: _id, ...s }: { id: string }) => s) } : f));
  return { features, segments: body.segments ?? [] };
}

/** `/api/frontend` for each context, toggles in name order. */
export async function frontendAnswers(url: string, token: string, contexts: readonly SdkContext[]): Promise<unknown[]> {
  const answers = [];
  for (const context of contexts) {
    const query = new URLSearchParams({ userId: context.userId });
    for (const [name, value] of Object.entries(context.properties)) query.set(`properties[${name}]`, value);
    const body = await okJson(await fetch(`${url}/api/frontend?${query}`, { headers: { authorization: token } }), "frontend");
    answers.push([...body.toggles].sort((a, b) => a.name.localeCompare(b.name)));
  }
  return answers;
}

/** The server SDK's `isEnabled` and `getVariant` for every flag and context. */
export function sdkAnswers(unleash: Unleash, names: readonly string[], contexts: readonly SdkContext[]): unknown[] {
  return contexts.flatMap((context) =>
    names.map((name) => ({
      name,
      userId: context.userId,
      enabled: unleash.isEnabled(name, context),
      variant: unleash.getVariant(name, context),
    })),
  );
}
