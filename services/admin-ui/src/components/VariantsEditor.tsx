import type { FeatureVariant, StrategyVariant, VariantOverride } from "@vexil/contracts";
import { useState } from "react";
import { SelectField, TextField } from "./forms.js";
import { cleanOverrides, VariantOverrides } from "./VariantOverrides.js";

export interface EditableVariant {
  name: string;
  weightType: "variable" | "fix";
  /** Per mille (0..1000), as the API counts; fixed variants keep theirs, variable ones share the rest. */
  weight: number;
  stickiness: string;
  payloadType: "" | "string" | "json" | "csv" | "number";
  payloadValue: string;
  /** Only a flag's environment variants have them; strategy variants keep an empty list. */
  overrides: VariantOverride[];
}

const total = 1000;

export function toEditable(variant: StrategyVariant | FeatureVariant): EditableVariant {
  return {
    name: variant.name,
    weightType: variant.weightType ?? "variable",
    weight: variant.weight,
    stickiness: variant.stickiness ?? "default",
    payloadType: variant.payload?.type ?? "",
    payloadValue: variant.payload?.value ?? "",
    overrides: "overrides" in variant ? (variant.overrides ?? []) : [],
  };
}

/** What the API is sent: variable weights spread over what the fixed ones leave, as the server spreads them. */
export function toVariants(variants: EditableVariant[]): StrategyVariant[] {
  const weights = spreadWeights(variants);
  return variants.map((v, i) => ({
    name: v.name,
    weightType: v.weightType,
    weight: weights[i]!,
    stickiness: v.stickiness,
    ...(v.payloadType ? { payload: { type: v.payloadType, value: v.payloadValue } } : {}),
  }));
}

/** A flag's environment variants: as for a strategy, with their overrides. */
export function toFeatureVariants(variants: EditableVariant[]): FeatureVariant[] {
  const plain = toVariants(variants);
  return plain.map((variant, i) => ({ ...variant, overrides: cleanOverrides(variants[i]!.overrides) }));
}

/** Each variant's share of 1000: fixed ones as given, the rest split evenly (the remainder to the first). */
export function spreadWeights(variants: EditableVariant[]): number[] {
  const fixed = variants.filter((v) => v.weightType === "fix").reduce((sum, v) => sum + v.weight, 0);
  const variableCount = variants.filter((v) => v.weightType === "variable").length;
  const left = Math.max(0, total - fixed);
  const each = variableCount ? Math.floor(left / variableCount) : 0;
  let remainder = variableCount ? left - each * variableCount : 0;
  return variants.map((v) => {
    if (v.weightType === "fix") return v.weight;
    const extra = remainder > 0 ? 1 : 0;
    remainder -= extra;
    return each + extra;
  });
}

/** The live total, and what is wrong with it before the API is asked. */
export function weightProblem(variants: EditableVariant[]): string | undefined {
  if (variants.length === 0) return undefined;
  const fixed = variants.filter((v) => v.weightType === "fix").reduce((sum, v) => sum + v.weight, 0);
  const hasVariable = variants.some((v) => v.weightType === "variable");
  if (hasVariable && fixed >= total) return "Fixed weights must leave something for the variable variants (below 100%).";
  if (!hasVariable && fixed !== total) return `Fixed weights add up to ${fixed / 10}%: they must add up to 100%.`;
  return undefined;
}

const percent = (weight: number) => `${(weight / 10).toFixed(1).replace(/\.0$/, "")}%`;

export function VariantsEditor({
  variants,
  onChange,
  stickinessOptions,
  label,
  overrideFields,
}: {
  variants: EditableVariant[];
  onChange: (variants: EditableVariant[]) => void;
  stickinessOptions: string[];
  label: string;
  /** The context fields overrides may name; without it the editor offers no overrides. */
  overrideFields?: string[];
}) {
  const weights = spreadWeights(variants);
  const problem = weightProblem(variants);
  // A variant added from the keyboard takes the focus, so typing goes on where it appeared.
  const [added, setAdded] = useState<number>();
  const update = (index: number, change: Partial<EditableVariant>) =>
    onChange(variants.map((v, i) => (i === index ? { ...v, ...change } : v)));
  return (
    <fieldset className="variants">
      <legend>{label}</legend>
      {variants.length === 0 && <p className="hint">No variants: every user who gets the flag gets it plain.</p>}
      {variants.map((variant, index) => (
        <div className="variant" key={index} role="group" aria-label={`Variant ${index + 1}`}>
          <div className="row">
            <TextField
              label="Variant name"
              required
              autoFocus={index === added}
              value={variant.name}
              onChange={(e) => update(index, { name: e.target.value })}
            />
            <SelectField
              label="Weight"
              value={variant.weightType}
              onChange={(e) => update(index, { weightType: e.target.value as EditableVariant["weightType"], weight: weights[index]! })}
            >
              <option value="variable">Variable (share the rest)</option>
              <option value="fix">Fixed</option>
            </SelectField>
            {variant.weightType === "fix" ? (
              <TextField
                label="Fixed share (%)"
                type="number"
                min={0}
                max={100}
                step={0.1}
                value={variant.weight / 10}
                onChange={(e) => update(index, { weight: Math.round(Number(e.target.value) * 10) })}
              />
            ) : (
              <div className="field">
                <span className="label">Share</span>
                <output aria-label={`Share of ${variant.name || `variant ${index + 1}`}`}>{percent(weights[index]!)}</output>
              </div>
            )}
            <SelectField label="Stickiness" value={variant.stickiness} onChange={(e) => update(index, { stickiness: e.target.value })}>
              {stickinessOptions.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </SelectField>
          </div>
          <div className="row">
            <SelectField
              label="Payload type"
              value={variant.payloadType}
              onChange={(e) => update(index, { payloadType: e.target.value as EditableVariant["payloadType"] })}
            >
              <option value="">No payload</option>
              <option value="string">string</option>
              <option value="json">json</option>
              <option value="csv">csv</option>
              <option value="number">number</option>
            </SelectField>
            {variant.payloadType && (
              <TextField label="Payload" value={variant.payloadValue} onChange={(e) => update(index, { payloadValue: e.target.value })} />
            )}
            <button type="button" className="danger align-end" onClick={() => onChange(variants.filter((_, i) => i !== index))}>
              Remove variant {variant.name || index + 1}
            </button>
          </div>
          {overrideFields && (
            <VariantOverrides
              variantLabel={variant.name || `variant ${index + 1}`}
              overrides={variant.overrides}
              onChange={(overrides) => update(index, { overrides })}
              contextNames={overrideFields}
            />
          )}
        </div>
      ))}
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setAdded(variants.length);
            onChange([
              ...variants,
              {
                name: "",
                weightType: "variable",
                weight: 0,
                stickiness: stickinessOptions[0] ?? "default",
                payloadType: "",
                payloadValue: "",
                overrides: [],
              },
            ]);
          }}
        >
          Add variant
        </button>
        {variants.length > 0 && (
          <span role="status" className={problem ? "field-error" : "hint"}>
            {problem ?? `Total ${percent(weights.reduce((a, b) => a + b, 0))}`}
          </span>
        )}
      </div>
    </fieldset>
  );
}
