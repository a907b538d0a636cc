import { constraintOperators, takesValues, type Constraint, type ConstraintOperator } from "@vexil/contracts";
import { useId } from "react";
import { SelectField, TextField } from "../../components/forms.js";

const caseSensitiveChoice = new Set<ConstraintOperator>(["IN", "NOT_IN", "STR_ENDS_WITH", "STR_STARTS_WITH", "STR_CONTAINS", "REGEX"]);

export const operatorLabels: Record<ConstraintOperator, string> = {
  IN: "is one of",
  NOT_IN: "is not one of",
  STR_CONTAINS: "contains",
  STR_STARTS_WITH: "starts with",
  STR_ENDS_WITH: "ends with",
  NUM_EQ: "= (number)",
  NUM_GT: "> (number)",
  NUM_GTE: "≥ (number)",
  NUM_LT: "< (number)",
  NUM_LTE: "≤ (number)",
  DATE_AFTER: "is after (date)",
  DATE_BEFORE: "is before (date)",
  SEMVER_EQ: "= (semver)",
  SEMVER_GT: "> (semver)",
  SEMVER_GTE: "≥ (semver)",
  SEMVER_LT: "< (semver)",
  SEMVER_LTE: "≤ (semver)",
  REGEX: "matches regex",
  IN_CIDR: "is in CIDR range",
};

/** `datetime-local` shows local time without a zone; the API stores ISO 8601 instants. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** How the editor names things: constraints on context fields by default; action-set filters reuse it for payload paths. */
export interface ConstraintWording {
  legend: string;
  item: string;
  field: string;
}

const constraintWording: ConstraintWording = { legend: "Constraints (all must match)", item: "constraint", field: "Context field" };

function ConstraintRow({
  constraint,
  index,
  contextNames,
  wording,
  onChange,
  onRemove,
}: {
  constraint: Constraint;
  index: number;
  contextNames: string[];
  wording: ConstraintWording;
  onChange: (c: Constraint) => void;
  onRemove: () => void;
}) {
  const listId = useId();
  const single = !takesValues(constraint.operator);
  const isDate = constraint.operator === "DATE_AFTER" || constraint.operator === "DATE_BEFORE";
  const setOperator = (operator: ConstraintOperator) => {
    // Moving between one value and a list keeps what was typed.
    const nowSingle = !takesValues(operator);
    const carried = nowSingle
      ? { value: constraint.value ?? constraint.values?.[0] ?? "", values: undefined }
      : { values: constraint.values ?? (constraint.value ? [constraint.value] : []), value: undefined };
    onChange({ ...constraint, operator, ...carried });
  };
  return (
    <div className="constraint" role="group" aria-label={`${capitalized(wording.item)} ${index + 1}`}>
      <div className="row">
        <TextField
          label={wording.field}
          list={listId}
          required
          value={constraint.contextName}
          onChange={(e) => onChange({ ...constraint, contextName: e.target.value })}
        />
        <datalist id={listId}>
          {contextNames.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <SelectField label="Operator" value={constraint.operator} onChange={(e) => setOperator(e.target.value as ConstraintOperator)}>
          {constraintOperators.map((op) => (
            <option key={op} value={op}>
              {operatorLabels[op]}
            </option>
          ))}
        </SelectField>
        {single && isDate && (
          <TextField
            label="Date and time"
            type="datetime-local"
            value={toLocalInput(constraint.value)}
            onChange={(e) => onChange({ ...constraint, value: e.target.value ? new Date(e.target.value).toISOString() : "" })}
          />
        )}
        {single && !isDate && (
          <TextField
            label="Value"
            required
            value={constraint.value ?? ""}
            onChange={(e) => onChange({ ...constraint, value: e.target.value })}
          />
        )}
      </div>
      {!single && (
        <div className="field">
          <label htmlFor={`${listId}-values`}>Values (one per line)</label>
          <textarea
            id={`${listId}-values`}
            rows={Math.min(6, Math.max(2, (constraint.values?.length ?? 0) + 1))}
            value={(constraint.values ?? []).join("\n")}
            onChange={(e) => onChange({ ...constraint, values: e.target.value.split("\n") })}
          />
        </div>
      )}
      <div className="actions">
        <label className="check">
          <input
            type="checkbox"
            checked={constraint.inverted ?? false}
            onChange={(e) => onChange({ ...constraint, inverted: e.target.checked })}
          />{" "}
          Negate (NOT)
        </label>
        {caseSensitiveChoice.has(constraint.operator) && (
          <label className="check">
            <input
              type="checkbox"
              checked={constraint.caseInsensitive ?? false}
              onChange={(e) => onChange({ ...constraint, caseInsensitive: e.target.checked })}
            />{" "}
            Ignore case
          </label>
        )}
        <button type="button" className="danger" onClick={onRemove}>
          Remove {wording.item} {index + 1}
        </button>
      </div>
    </div>
  );
}

/** Drops the blank lines of value lists before a constraint is sent. */
export function cleanConstraints(constraints: Constraint[]): Constraint[] {
  return constraints.map((c) => (c.values ? { ...c, values: c.values.map((v) => v.trim()).filter(Boolean) } : c));
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function ConstraintsEditor({
  constraints,
  onChange,
  contextNames,
  wording = constraintWording,
}: {
  constraints: Constraint[];
  onChange: (constraints: Constraint[]) => void;
  contextNames: string[];
  wording?: ConstraintWording;
}) {
  return (
    <fieldset className="constraints">
      <legend>{wording.legend}</legend>
      {constraints.map((constraint, index) => (
        <ConstraintRow
          key={index}
          index={index}
          constraint={constraint}
          contextNames={contextNames}
          wording={wording}
          onChange={(changed) => onChange(constraints.map((c, i) => (i === index ? changed : c)))}
          onRemove={() => onChange(constraints.filter((_, i) => i !== index))}
        />
      ))}
      <button type="button" onClick={() => onChange([...constraints, { contextName: contextNames[0] ?? "", operator: "IN", values: [] }])}>
        Add {wording.item}
      </button>
    </fieldset>
  );
}
