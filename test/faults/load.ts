/**
 * The steady load the fault suite runs under, all through the gateway over HTTP and the real SDKs:
 * a writer creating and toggling flags (retrying until each write is acknowledged), a polling and a
 * streaming unleash-client, a webhook receiver behind a webhook addon, and a signal source whose
 * signals an action set acts on.
 */
import { Unleash } from "unleash-client";
import { startReceiver, type Receiver } from "../e2e/addons-receiver.js";
import { waitFor } from "../src/servers.js";
import type { VexilProcess } from "../src/vexil-process.js";

export const environment = "development";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a process's /ready answers (status 0: nothing answered). */
export async function readiness(url: string): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(3000) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 0, text: String(err) };
  }
}

/** What a process's /health answers, as text ("" when nothing answered). */
export async function health(url: string): Promise<string> {
  try {
    return await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(3000) })).text();
  } catch {
    return "";
  }
}

export const clusterServices = ["admin", "frontend-eval", "signal-ingest", "addon-delivery"] as const;

/** Waits until the gateway and every service of the cluster say ready. */
export function everyServiceReady(vexil: VexilProcess, timeoutMs = 120_000): Promise<boolean> {
  const urls = [vexil.url, ...clusterServices.map((service) => vexil.serviceUrl(service))];
  return waitFor(async () => (await Promise.all(urls.map(readiness))).every((r) => r.status === 200), timeoutMs, 250);
}

export interface Gateway {
  url: string;
  admin: string;
  client: string;
}

export async function adminFetch(gateway: Gateway, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: gateway.admin, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(15_000),
  });
}

/** A flag the writer had acknowledged, with the state it was last acknowledged in. */
export interface AckedFlag {
  project: string;
  enabled: boolean;
}

/**
 * Writes one flag after another: create it, then switch it on in development every other time.
 * A write that fails is sent again until it is acknowledged (create answers 409 when an earlier
 * try did commit), so every acknowledged state is one the admin must still hold.
 */
export function startWriter(gateway: Gateway, projects: string[], { pauseMs = 150 } = {}) {
  const acked = new Map<string, AckedFlag>();
  const ackTimes: number[] = [];
  let failures = 0;
  let stopped = false;
  let paused = false;
  /** Resolves the callers of `pause` once the write in flight is acknowledged. */
  const whenIdle: Array<() => void> = [];
  let n = 0;

  async function untilAcknowledged(send: () => Promise<Response>, accept: (status: number) => boolean): Promise<void> {
    for (;;) {
      const status = await send()
        .then((res) => res.status)
        .catch(() => 0);
      if (accept(status)) return;
      failures++;
      if (stopped) throw new Error("writer stopped");
      await sleep(250);
    }
  }

  const loop = (async () => {
    while (!stopped) {
      if (paused) {
        for (const resolve of whenIdle.splice(0)) resolve();
        await sleep(100);
        continue;
      }
      const project = projects[n % projects.length]!;
      const name = `w-${String(n).padStart(5, "0")}`;
      const enable = n % 2 === 0;
      n++;
      try {
        await untilAcknowledged(
          () => adminFetch(gateway, `/api/admin/projects/${project}/features`, { method: "POST", body: { name } }),
          (s) => s === 201 || s === 409,
        );
        acked.set(name, { project, enabled: false });
        ackTimes.push(Date.now());
        if (enable) {
          await untilAcknowledged(
            () => adminFetch(gateway, `/api/admin/projects/${project}/features/${name}/environments/${environment}/on`, { method: "POST" }),
            (s) => s === 200,
          );
          acked.set(name, { project, enabled: true });
          ackTimes.push(Date.now());
        }
      } catch {
        return;
      }
      await sleep(pauseMs);
    }
  })();

  return {
    acked,
    /** Acknowledged writes in the window [from, to). */
    ackedBetween: (from: number, to: number) => ackTimes.filter((t) => t >= from && t < to).length,
    get writes() {
      return ackTimes.length;
    },
    get failures() {
      return failures;
    },
    /**
     * Stops starting new writes and resolves once the one in flight is acknowledged, so the admin's
     * state holds still and every acknowledgement is counted before anyone reads it.
     */
    pause(): Promise<void> {
      paused = true;
      return new Promise((resolve) => whenIdle.push(resolve));
    },
    resume() {
      paused = false;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
export type Writer = ReturnType<typeof startWriter>;

/** What the admin holds for every flag of the projects: name to enabled in development. */
export async function adminState(gateway: Gateway, projects: string[]): Promise<Map<string, boolean>> {
  const state = new Map<string, boolean>();
  for (const project of projects) {
    const res = await adminFetch(gateway, `/api/admin/projects/${project}/features`);
    if (!res.ok) throw new Error(`listing ${project} answered ${res.status}`);
    const { features } = (await res.json()) as {
      features: Array<{ name: string; environments: Array<{ name: string; enabled: boolean }> }>;
    };
    for (const feature of features) state.set(feature.name, feature.environments.find((e) => e.name === environment)?.enabled ?? false);
  }
  return state;
}

/** A polling and a streaming unleash-client on the client token, as applications run them. */
export async function startSdks(gateway: Gateway) {
  const common = { url: `${gateway.url}/api`, customHeaders: { Authorization: gateway.client }, disableMetrics: true };
  const polling = new Unleash({ ...common, appName: "faults-polling", refreshInterval: 1000 });
  const streaming = new Unleash({ ...common, appName: "faults-streaming", refreshInterval: 1000, experimentalMode: { type: "streaming" } });
  const warnings: string[] = [];
  for (const sdk of [polling, streaming]) {
    sdk.on("error", () => undefined);
    sdk.on("warn", (message: unknown) => warnings.push(String(message)));
  }
  await Promise.all([polling, streaming].map((sdk) => new Promise((resolve) => sdk.once("synchronized", resolve))));
  const view = (sdk: Unleash) => new Map(sdk.getFeatureToggleDefinitions().map((f) => [f.name, f.enabled]));
  return {
    polling,
    streaming,
    warnings,
    views: () => ({ polling: view(polling), streaming: view(streaming) }),
    stop() {
      polling.destroy();
      streaming.destroy();
    },
  };
}
export type Sdks = Awaited<ReturnType<typeof startSdks>>;

/** Differences between what the admin holds and what an SDK sees (flags of the given projects). */
export function differences(admin: Map<string, boolean>, sdk: Map<string, boolean>): string[] {
  const out: string[] = [];
  for (const [name, enabled] of admin) if (sdk.get(name) !== enabled) out.push(`${name}: admin ${enabled}, sdk ${sdk.get(name)}`);
  return out;
}

/** Webhook deliveries by idempotency key (`<eventId>:<addonId>`); repeats keep their key. */
export async function startWebhook(gateway: Gateway): Promise<{ receiver: Receiver; addonId: number; keys: () => Map<string, number> }> {
  const receiver = await startReceiver(() => 200);
  const res = await adminFetch(gateway, "/api/admin/addons", {
    method: "POST",
    body: {
      provider: "webhook",
      enabled: true,
      parameters: { url: receiver.url("/hook") },
      events: ["feature-created", "feature-environment-enabled"],
      projects: [],
      environments: [],
    },
  });
  if (!res.ok) throw new Error(`webhook addon: ${res.status} ${await res.text()}`);
  const addonId = ((await res.json()) as { id: number }).id;
  const keys = () => {
    const counts = new Map<string, number>();
    for (const request of receiver.answered("/hook")) {
      const key = String(request.headers["idempotency-key"] ?? request.headers["x-vexil-delivery"]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
  return { receiver, addonId, keys };
}

/**
 * A signal endpoint with a token, a service account and an action set that switches a flag off
 * on every signal; the source sends one signal a little more than once a second (the endpoint's
 * rate limit) with a sequence number, and remembers which were accepted.
 */
export async function startSignalSource(gateway: Gateway, project: string) {
  const ok = async (res: Response, what: string) => {
    if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const endpoint = await ok(
    await adminFetch(gateway, "/api/admin/signal-endpoints", { method: "POST", body: { name: "faults" } }),
    "endpoint",
  );
  const { token } = await ok(
    await adminFetch(gateway, `/api/admin/signal-endpoints/${endpoint.id}/tokens`, { method: "POST", body: { name: "source" } }),
    "signal token",
  );
  const account = await ok(
    await adminFetch(gateway, "/api/admin/service-account", { method: "POST", body: { username: "faults-bot", rootRole: "Editor" } }),
    "service account",
  );
  await ok(
    await adminFetch(gateway, `/api/admin/projects/${project}/features`, { method: "POST", body: { name: "signal-target" } }),
    "flag",
  );
  const set = await ok(
    await adminFetch(gateway, `/api/admin/projects/${project}/actions`, {
      method: "POST",
      body: {
        name: "switch off on signal",
        actorId: account.id,
        match: { source: "signal-endpoint", sourceId: endpoint.id, payload: {} },
        actions: [{ action: "TOGGLE_FEATURE_OFF", sortOrder: 1, executionParams: { project, featureName: "signal-target", environment } }],
      },
    }),
    "action set",
  );

  const accepted: number[] = [];
  let stopped = false;
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      const seq = n++;
      const status = await fetch(`${gateway.url}/api/signal-endpoint/faults`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({ seq }),
        signal: AbortSignal.timeout(10_000),
      })
        .then((res) => res.status)
        .catch(() => 0);
      if (status === 202) accepted.push(seq);
      await sleep(1200);
    }
  })();

  /** For each accepted signal, how many times the action set acted on it. */
  async function actedOn(): Promise<Map<number, number>> {
    const counts = new Map<number, number>(accepted.map((seq) => [seq, 0]));
    for (let offset = 0; ; offset += 1000) {
      const page = await ok(
        await adminFetch(gateway, `/api/admin/projects/${project}/actions/${set.id}/events?limit=1000&offset=${offset}`),
        "log",
      );
      for (const entry of page.actionSetEvents as Array<{ state: string; signal: { payload: { seq?: number } } }>) {
        const seq = entry.signal.payload.seq;
        if (typeof seq === "number" && entry.state === "success") counts.set(seq, (counts.get(seq) ?? 0) + 1);
      }
      if (page.actionSetEvents.length < 1000) return counts;
    }
  }

  return {
    accepted,
    actedOn,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
export type SignalSource = Awaited<ReturnType<typeof startSignalSource>>;

/** Every event of the types the webhook takes (feature-created, feature-environment-enabled) after `afterId`, by id. */
export async function expectedDeliveries(gateway: Gateway, afterId: number): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const type of ["feature-created", "feature-environment-enabled"]) {
    for (let offset = 0; ; offset += 1000) {
      const res = await adminFetch(gateway, `/api/admin/search/events?type=${type}&limit=1000&offset=${offset}`);
      const { events } = (await res.json()) as { events: Array<{ id: number }> };
      for (const event of events) if (event.id > afterId) ids.add(String(event.id));
      if (events.length < 1000) break;
    }
  }
  return ids;
}

/** The id of the newest event in admin's log (0 when none). */
export async function latestEventId(gateway: Gateway): Promise<number> {
  const res = await adminFetch(gateway, "/api/admin/events?limit=1");
  return ((await res.json()) as { events: Array<{ id: number }> }).events[0]?.id ?? 0;
}

/**
 * Waits (up to a minute) until the webhook received every expected event; then which were never
 * delivered, and how many deliveries repeated one already received (same idempotency key).
 */
export async function deliveriesOf(
  webhook: Awaited<ReturnType<typeof startWebhook>>,
  expected: Set<string>,
): Promise<{ delivered: Set<string>; missing: string[]; repeated: number }> {
  const eventOf = (key: string) => key.split(":")[0]!;
  let keys = webhook.keys();
  await waitFor(
    async () => {
      keys = webhook.keys();
      const delivered = new Set([...keys.keys()].map(eventOf));
      return [...expected].every((id) => delivered.has(id));
    },
    60_000,
    250,
  );
  const delivered = new Set([...keys.keys()].map(eventOf));
  return {
    delivered,
    missing: [...expected].filter((id) => !delivered.has(id)),
    repeated: [...keys.values()].reduce((sum, n) => sum + n - 1, 0),
  };
}

/** Waits (up to a minute) until every accepted signal was acted on; then how many times each was. */
export async function signalsActedOn(signals: SignalSource): Promise<Map<number, number>> {
  let acted = await signals.actedOn();
  await waitFor(
    async () => {
      acted = await signals.actedOn();
      return [...acted.values()].every((n) => n >= 1);
    },
    60_000,
    500,
  );
  return acted;
}
