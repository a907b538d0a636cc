/**
 * The real Unleash SDKs pointed at a running Vexil: the server SDK (`unleash-client`, polling or
 * streaming `/api/client/*`) and the browser SDK (`unleash-proxy-client`, run in Node with fetch,
 * on `/api/frontend`). Each started SDK is kept so that one call stops them all.
 */
import { Unleash, UnleashEvents } from "unleash-client";
import { UnleashClient } from "unleash-proxy-client";

export interface SdkTarget {
  url: string;
  dataDir: string;
}

export function sdkPool() {
  const started: Array<{ destroy(): void } | { stop(): void }> = [];
  return {
    /**
     * Resolves once the first flag set arrived. Streaming SDKs poll never (the change must be
     * pushed); polling ones every `refreshInterval` ms.
     */
    serverSdk(target: SdkTarget, token: string, mode: "polling" | "streaming", refreshInterval = 200): Promise<Unleash> {
      const unleash = new Unleash({
        appName: `e2e-${mode}`,
        url: `${target.url}/api`,
        customHeaders: { Authorization: token },
        refreshInterval: mode === "streaming" ? 600_000 : refreshInterval,
        disableMetrics: true,
        backupPath: target.dataDir,
        experimentalMode: mode === "streaming" ? { type: "streaming" } : { type: "polling", format: "full" },
        // A test file starts many on purpose; the SDK would otherwise report the eleventh as an error.
        skipInstanceCountWarning: true,
      });
      started.push(unleash);
      return new Promise((resolve, reject) => {
        unleash.once(UnleashEvents.Synchronized, () => resolve(unleash));
        unleash.once(UnleashEvents.Error, reject);
      });
    },
    async browserSdk(target: SdkTarget, token: string, context: { userId?: string } = {}): Promise<UnleashClient> {
      const client = new UnleashClient({
        url: `${target.url}/api/frontend`,
        clientKey: token,
        appName: "e2e-browser",
        refreshInterval: 1,
        disableMetrics: true,
        context,
      });
      started.push(client);
      await client.start();
      return client;
    },
    stopAll() {
      for (const sdk of started.splice(0)) {
        if ("destroy" in sdk) sdk.destroy();
        else sdk.stop();
      }
    },
  };
}

/** Polls a synchronous condition (an SDK's answer) until it holds; throws after the deadline. */
export async function until(check: () => boolean, timeoutMs: number, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
