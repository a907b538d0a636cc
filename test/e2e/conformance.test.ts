import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Unleash, UnleashEvents, type Context as SdkContext } from "unleash-client";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { loadSpecState, variantsInput, type LoadReport, type SpecState } from "../src/spec-loader.js";

/**
 * The Unleash client specification end to end: each file's state is loaded through the admin API
 * into one running Vexil, once in `default` and once in a project created while it runs (read with
 * tokens for that project only), and every case is answered by `/api/frontend` and by the real
 * `unleash-client` SDK polling `/api/client/features`. Between loads the flags and segments are
 * deleted, so each load starts from an empty flag model (flag names are unique across projects).
 *
 * Nothing is forced in: what the admin API refuses is listed below with the reason and asserted to
 * be refused with a 400, and the cases that rest on it are skipped with that reason. So are the
 * cases on flags whose variant lists the admin API stores otherwise (it spreads weights to 1000 and
 * sorts by name, as Unleash does) and the two contexts the frontend API completes by design.
 */

type Context = Record<string, unknown> & { properties?: Record<string, string | null> };
interface ExpectedVariant {
  name: string;
  enabled: boolean;
  feature_enabled?: boolean;
  payload?: { type: string; value: string };
}
interface SpecFile {
  state: SpecState;
  tests?: Array<{ description: string; context: Context; toggleName: string; expectedResult: boolean }>;
  variantTests?: Array<{ description: string; context: Context; toggleName: string; expectedResult: ExpectedVariant }>;
}

const specIndex = createRequire(import.meta.url).resolve("@unleash/client-specification/specifications/index.json");
const specDir = dirname(specIndex);
// 19 and 20 replay delta API events, not a flag state an operator could set up.
const deltaFiles = new Set(["19-delta-api-hydration.json", "20-delta-api-events.json"]);
const specFiles = (JSON.parse(readFileSync(specIndex, "utf8")) as string[]).filter((file) => !deltaFiles.has(file));

const loadSpec = (file: string) => JSON.parse(readFileSync(join(specDir, file), "utf8")) as SpecFile;

interface FrontendToggle {
  name: string;
  variant: ExpectedVariant;
}

const validation = "Vexil refuses constraint values the SDKs cannot parse (they would be silently false)";

/** Flags of the spec the admin API refuses to store as given, per file, with why. */
const refusedByAdmin: Record<string, Record<string, string>> = {
  "09-strategy-constraints.json": {
    "Feature.constraints.empty": "IN with an empty values list (refused by Unleash too)",
    "Feature.constraints.empty-not-in": "NOT_IN with an empty values list (refused by Unleash too)",
  },
  "11-strategy-constraints-edge-cases.json": {
    "Feature.constraints.no_values": "IN with an empty values list (refused by Unleash too)",
    "Feature.constraints.no_values_NOT_IN": "NOT_IN with an empty values list (refused by Unleash too)",
  },
  "13-constraint-operators.json": { "F7.invalid-operator": "operator NOT_A_VALID_OPERATOR is not an operator (refused by Unleash too)" },
  "14-constraint-semver-operators.json": { "F8.invalidSemverWithLeadingV": "semver value v2.0.0 (refused by Unleash too)" },
  "15-global-constraints.json": { "F9.withMissingSegment": "a strategy on segment 404, which the state does not define" },
  "17-dependent-features.json": {
    "parents.not.exist.child.enabled": "a dependency on a flag that does not exist",
    "child.with.cycle": "a dependency cycle (dependencies are one level deep, as in Unleash)",
    "child.with.transitive.dependency": "a dependency on a flag that has a parent (one level deep, as in Unleash)",
  },
  "18-utf8-flag-names.json": {
    "Feature.UTF-8.Hellø_Wørld": "a name that is not URL friendly (refused by Unleash too)",
    "Feature.UTF-8.😊_φriend_你好_🌍": "a name that is not URL friendly (refused by Unleash too)",
  },
  "21-regex-constraint-operators.json": {
    "invalid-regex-defaults-to-false": `REGEX "(regex" does not compile: ${validation}`,
    "R90.reject_lookahead": `REGEX with a lookahead, not RE2: ${validation}`,
    "R91.reject_backreference": `REGEX with a backreference, not RE2: ${validation}`,
  },
  "22-cidr-constraint-operators.json": {
    "CIDR.mixed.values": `IN_CIDR value 127.invalid: ${validation}`,
    "CIDR.invalid.only": `IN_CIDR value 127.invalid: ${validation}`,
    "CIDR.ipv6.mixed.values": `IN_CIDR value bad::cidr: ${validation}`,
  },
};

/** Contexts the frontend API completes by design (as Unleash does), so the spec's answer differs there. */
const frontendCompletes: Record<string, string> = {
  "Feature.A4 should be disabled when no user on context":
    "the frontend API gives a context without sessionId a random one, so anonymous users still spread",
  "Feature.remoteAddress.A should not be enabled for missing remoteAddress on context":
    "the frontend API takes the caller's address (127.0.0.1 here) when the context has none",
};

/** Why a case cannot be asked of `/api/frontend` although the SDKs answer it, or null. */
function frontendCannotAnswer(description: string, context: Context): string | null {
  if (frontendCompletes[description]) return frontendCompletes[description];
  // As in Unleash, a caller's currentTime is a property there: date constraints see the server's clock.
  if (context.currentTime !== undefined) return "the frontend API evaluates dates at the server's clock, not a caller's currentTime";
  return null;
}

/**
 * Why a case cannot be checked end to end, or null: its flag, or a parent it depends on, was
 * refused; or (for variants) the admin API stored one of its variant lists otherwise (spread or
 * sorted) and the case is not settled by an override.
 */
function unrepresentable(spec: SpecFile, file: string, toggleName: string, context: Context, variant: boolean): string | null {
  const refused = refusedByAdmin[file] ?? {};
  const byName = new Map(spec.state.features.map((f) => [f.name, f]));
  const seen = new Set<string>();
  const walk = (name: string): string | null => {
    if (seen.has(name)) return null;
    seen.add(name);
    if (refused[name]) return `admin API refuses ${name}: ${refused[name]}`;
    for (const { feature } of byName.get(name)?.dependencies ?? []) {
      const reason = walk(feature);
      if (reason) return reason;
    }
    return null;
  };
  const reason = walk(toggleName);
  if (reason || !variant) return reason;
  const feature = byName.get(toggleName);
  const strategyLists = (feature?.strategies ?? []).map((s) => s.variants ?? []);
  const environmentVariants = feature?.variants ?? [];
  const weights = (variants: readonly { weight: number }[]) => variants.map((v) => v.weight).join("/");
  const alteredStrategyLists = strategyLists.filter((variants) => !variantsInput(variants).exact);
  if (alteredStrategyLists.length > 0) {
    return `strategy variant weights ${alteredStrategyLists.map(weights).join(", ")}; the admin API spreads variable weights to 1000, as Unleash does`;
  }
  if (variantsInput(environmentVariants).exact) return null;
  const overridden = environmentVariants.some((v) =>
    (v.overrides ?? []).some((o) => o.values.includes(String(context[o.contextName] ?? context.properties?.[o.contextName] ?? ""))),
  );
  if (overridden) return null;
  const total = environmentVariants.reduce((n, v) => n + v.weight, 0);
  return `environment variant weights ${weights(environmentVariants)} total ${total}; the admin API spreads variable weights to 1000 and sorts by name, as Unleash does`;
}

const disabledVariant: ExpectedVariant = { name: "disabled", enabled: false, feature_enabled: false };

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem();
  await vexil.createProject("spec-fresh");
});
afterAll(() => vexil?.stop());

describe.each(specFiles)("%s", (file) => {
  const spec = loadSpec(file);

  describe.each(["default", "spec-fresh"])("in project %s", (project) => {
    let sdk: Unleash;
    let report: LoadReport;
    let tokens: { client: string; frontend: string };

    beforeAll(async () => {
      tokens =
        project === "default"
          ? vexil.tokens
          : {
              client: await vexil.createApiToken({ type: "client", projects: [project] }),
              frontend: await vexil.createApiToken({ type: "frontend", projects: [project] }),
            };
      report = await loadSpecState((path, init) => vexil.api(path, init), spec.state, project);
      if (report.changes > 0) await waitForSnapshot(tokens.client);
      sdk = await serverSdk(tokens.client);
    });

    afterAll(async () => {
      sdk?.destroy();
      await clearFlagModel(project);
    });

    it("loads the state, refused only where listed and with a 400", () => {
      const refusedFlags = [...new Set(report.refused.map((r) => r.feature))].sort();
      expect(refusedFlags).toEqual(Object.keys(refusedByAdmin[file] ?? {}).sort());
      for (const refusal of report.refused) expect(refusal, refusal.message).toMatchObject({ status: 400 });
      const spread = spec.state.features
        .filter((f) => [f.variants ?? [], ...(f.strategies ?? []).map((s) => s.variants ?? [])].some((v) => !variantsInput(v).exact))
        .map((f) => f.name);
      expect([...new Set(report.altered.map((a) => a.feature))]).toEqual(spread);
    });

    async function frontendToggles(context: Context): Promise<FrontendToggle[]> {
      const res = await vexil.api("/api/frontend", { method: "POST", token: tokens.frontend, body: { context } });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { toggles: FrontendToggle[] }).toggles;
    }

    for (const { description, context, toggleName, expectedResult } of spec.tests ?? []) {
      const skip = unrepresentable(spec, file, toggleName, context, false);
      const frontendSkip = skip ?? frontendCannotAnswer(description, context);
      it.skipIf(frontendSkip)(
        `isEnabled via /api/frontend: ${description}${frontendSkip ? ` [skipped: ${frontendSkip}]` : ""}`,
        async () => {
          const toggles = await frontendToggles(context);
          expect(toggles.some((t) => t.name === toggleName)).toBe(expectedResult);
        },
      );
      it.skipIf(skip)(`isEnabled via unleash-client: ${description}${skip ? ` [skipped: ${skip}]` : ""}`, () => {
        expect(sdk.isEnabled(toggleName, asSdkContext(context))).toBe(expectedResult);
      });
    }

    for (const { description, context, toggleName, expectedResult } of spec.variantTests ?? []) {
      const skip = unrepresentable(spec, file, toggleName, context, true);
      const frontendSkip = skip ?? frontendCannotAnswer(description, context);
      it.skipIf(frontendSkip)(
        `getVariant via /api/frontend: ${description}${frontendSkip ? ` [skipped: ${frontendSkip}]` : ""}`,
        async () => {
          // A flag missing from `toggles` is off for this context: the SDKs' disabled variant.
          const toggle = (await frontendToggles(context)).find((t) => t.name === toggleName);
          expect(pickVariant(toggle?.variant ?? disabledVariant)).toStrictEqual(expectedResult);
        },
      );
      it.skipIf(skip)(`getVariant via unleash-client: ${description}${skip ? ` [skipped: ${skip}]` : ""}`, () => {
        expect(pickVariant(sdk.getVariant(toggleName, asSdkContext(context)))).toStrictEqual(expectedResult);
      });
    }
  });
});

/** The spec's contexts go to the SDK as they are, nulls included, as the spec means them to. */
const asSdkContext = (context: Context) => context as SdkContext;

/** The fields the spec states for a variant. */
function pickVariant({ name, enabled, feature_enabled, payload }: ExpectedVariant): ExpectedVariant {
  return { name, ...(payload ? { payload } : {}), enabled, feature_enabled };
}

/** Waits until `/api/client/features` carries the newest admin event, i.e. everything loaded. */
async function waitForSnapshot(clientToken: string): Promise<void> {
  const events = (await (await vexil.api("/api/admin/events?limit=1")).json()) as { events: Array<{ id: number }> };
  const latest = events.events[0]?.id ?? 0;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await vexil.api("/api/client/features", { token: clientToken });
    const revision = res.ok ? ((await res.json()) as { meta: { revisionId: number } }).meta.revisionId : -1;
    if (revision >= latest) return;
    if (Date.now() > deadline) throw new Error(`client features still at revision ${revision}, newest event ${latest}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Deletes every flag of the project (archived first, all at once) and every segment. */
async function clearFlagModel(project: string): Promise<void> {
  const features = (await vexil.expectStatus(`/api/admin/projects/${project}/features`, undefined, 200)).features as Array<{
    name: string;
  }>;
  const names = features.map((f) => f.name);
  if (names.length > 0) {
    await vexil.expectStatus(`/api/admin/projects/${project}/archive`, { method: "POST", body: { features: names } }, 202);
    await vexil.expectStatus(`/api/admin/projects/${project}/delete`, { method: "POST", body: { features: names } }, 200);
  }
  const { segments } = (await vexil.expectStatus("/api/admin/segments", undefined, 200)) as { segments: Array<{ id: number }> };
  for (const { id } of segments) await vexil.expectStatus(`/api/admin/segments/${id}`, { method: "DELETE" }, 204);
}

function serverSdk(clientToken: string): Promise<Unleash> {
  const unleash = new Unleash({
    appName: "conformance",
    url: `${vexil.url}/api`,
    customHeaders: { Authorization: clientToken },
    refreshInterval: 60_000,
    disableMetrics: true,
    backupPath: vexil.dataDir,
  });
  return new Promise((resolve, reject) => {
    unleash.once(UnleashEvents.Synchronized, () => resolve(unleash));
    unleash.once(UnleashEvents.Error, reject);
  });
}
