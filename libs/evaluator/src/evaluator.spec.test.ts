import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyDelta, compileSnapshot, contextFreeResult, evaluate, evaluateFeature, explainAll } from "./index.js";
import type { ClientFeaturesPayload, Context, DeltaEvent, EvaluateOptions, VariantResult } from "./index.js";

// Drives every file of the Unleash client specification, one suite per file.

interface SpecFile {
  name: string;
  // Files 19 and 20 hold delta API events instead of a client-features payload.
  state: ClientFeaturesPayload | { events: DeltaEvent[] };
  tests?: { description: string; context: Context; toggleName: string; expectedResult: boolean }[];
  variantTests?: {
    description: string;
    context: Context;
    toggleName: string;
    expectedResult: Omit<VariantResult, "featureEnabled">;
  }[];
}

const specIndex = createRequire(import.meta.url).resolve("@unleash/client-specification/specifications/index.json");
const specDir = dirname(specIndex);
const specFiles = JSON.parse(readFileSync(specIndex, "utf8")) as string[];

function loadSpec(file: string): SpecFile {
  return JSON.parse(readFileSync(join(specDir, file), "utf8")) as SpecFile;
}

// Delta files are replayed onto an empty payload, which is how a client starts.
function payloadOf(state: SpecFile["state"]): ClientFeaturesPayload {
  return "events" in state ? applyDelta({ version: 1, features: [] }, state.events) : state;
}

// Real randomness on purpose: a spec case must hold whatever the random draw.
const options: EvaluateOptions = { random: Math.random, now: Date.now };

describe.each(specFiles)("%s", (file) => {
  const spec = loadSpec(file);
  const snapshot = compileSnapshot(payloadOf(spec.state));

  it.each(spec.tests ?? [])("isEnabled: $description", ({ context, toggleName, expectedResult }) => {
    expect(evaluate(snapshot, toggleName, context, options).enabled).toBe(expectedResult);
  });

  it.each(spec.variantTests ?? [])("getVariant: $description", ({ context, toggleName, expectedResult }) => {
    expect(evaluate(snapshot, toggleName, context, options).variant).toStrictEqual({
      ...expectedResult,
      featureEnabled: expectedResult.feature_enabled,
    });
  });

  it("answers a flag it calls context-free the same for every context of the file", () => {
    const contexts = [...(spec.tests ?? []), ...(spec.variantTests ?? [])].map((test) => test.context);
    for (const feature of snapshot.features.values()) {
      const constant = contextFreeResult(feature);
      if (!constant) continue;
      for (const context of [{}, ...contexts]) expect(evaluateFeature(feature, context, options), feature.name).toStrictEqual(constant);
    }
  });
});

// The playground's explanation must give the SDKs' answer in every case of the specification.
describe.each(specFiles)("explained: %s", (file) => {
  const spec = loadSpec(file);
  const payload = payloadOf(spec.state);

  const explained = (context: Context, toggleName: string) => explainAll(payload, context, options).find((f) => f.name === toggleName);

  it.each(spec.tests ?? [])("isEnabled: $description", ({ context, toggleName, expectedResult }) => {
    expect(explained(context, toggleName)?.enabled ?? false).toBe(expectedResult);
  });

  it.each(spec.variantTests ?? [])("getVariant: $description", ({ context, toggleName, expectedResult }) => {
    const variant = explained(context, toggleName)?.variant ?? evaluate(compileSnapshot(payload), toggleName, context, options).variant;
    expect(variant).toStrictEqual({ ...expectedResult, featureEnabled: expectedResult.feature_enabled });
  });
});
