import type { VariantOverride } from "@vexil/contracts";
import { useId, useState } from "react";
import { TextField } from "./forms.js";

/**
 * Who gets a variant whatever the weights say: users whose context field holds one of the values
 * (Unleash's `overrides: [{ contextName, values }]` on a flag's environment variants).
 */
export function VariantOverrides({
  variantLabel,
  overrides,
  onChange,
  contextNames,
}: {
  variantLabel: string;
  overrides: VariantOverride[];
  onChange: (overrides: VariantOverride[]) => void;
  contextNames: string[];
}) {
  const id = useId();
  // A row added from the keyboard takes the focus, so typing goes on where the row appeared.
  const [added, setAdded] = useState<number>();
  const update = (index: number, change: Partial<VariantOverride>) =>
    onChange(overrides.map((o, i) => (i === index ? { ...o, ...change } : o)));
  return (
    <fieldset className="overrides">
      <legend>Overrides of {variantLabel}</legend>
      {overrides.length === 0 && <p className="hint">None: only the weights decide who gets {variantLabel}.</p>}
      <datalist id={`${id}-fields`}>
        {contextNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {overrides.map((override, index) => (
        <div className="row" role="group" aria-label={`Override ${index + 1} of ${variantLabel}`} key={index}>
          <TextField
            label="Context field"
            autoFocus={index === added}
            list={`${id}-fields`}
            required
            value={override.contextName}
            onChange={(e) => update(index, { contextName: e.target.value })}
          />
          <div className="field">
            <label htmlFor={`${id}-values-${index}`}>Values (one per line)</label>
            <textarea
              id={`${id}-values-${index}`}
              rows={Math.min(6, Math.max(2, override.values.length + 1))}
              value={override.values.join("\n")}
              onChange={(e) => update(index, { values: e.target.value.split("\n") })}
            />
          </div>
          <button type="button" className="danger align-end" onClick={() => onChange(overrides.filter((_, i) => i !== index))}>
            Remove override {index + 1} of {variantLabel}
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          setAdded(overrides.length);
          onChange([...overrides, { contextName: "", values: [] }]);
        }}
      >
        Add override to {variantLabel}
      </button>
    </fieldset>
  );
}

/** What the API is sent: values trimmed, empty lines left out. */
export function cleanOverrides(overrides: VariantOverride[]): VariantOverride[] {
  return overrides.map((o) => ({ contextName: o.contextName.trim(), values: o.values.map((v) => v.trim()).filter(Boolean) }));
}
