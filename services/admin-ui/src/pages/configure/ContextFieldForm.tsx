import { useMutation } from "@tanstack/react-query";
import type { ContextField, LegalValue } from "@vexil/contracts";
import { useId, useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";

/**
 * Creates a context field, or replaces an existing one's description, stickiness and legal values
 * (Unleash's `PUT /api/admin/context/:name`; the name cannot change). Errors show at their field.
 */
export function ContextFieldForm({
  field,
  onSaved,
  onCancel,
}: {
  field?: ContextField;
  onSaved: () => Promise<unknown>;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(field?.name ?? "");
  const [description, setDescription] = useState(field?.description ?? "");
  const [stickiness, setStickiness] = useState(field?.stickiness ?? false);
  const [legalValues, setLegalValues] = useState<LegalValue[]>(field?.legalValues ?? []);
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        description: description || null,
        stickiness,
        legalValues: legalValues.map((v) => ({ value: v.value.trim(), ...(v.description ? { description: v.description } : {}) })),
      };
      if (field) await ok(adminApi.context.update({ params: { name: field.name }, body: { ...body, sortOrder: field.sortOrder } }));
      else await ok(adminApi.context.create({ body: { name, ...body } }));
    },
    onSuccess: async () => {
      if (!field) {
        setName("");
        setDescription("");
        setStickiness(false);
        setLegalValues([]);
      }
      await onSaved();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const title = field ? `Edit context field ${field.name}` : "New context field";
  const valuesError = fieldError(save.error, "legalValues");
  const shownAtField = fieldError(save.error, "name") ?? fieldError(save.error, "description") ?? valuesError;
  return (
    <form onSubmit={submit} className="card" aria-label={title}>
      <h2>{title}</h2>
      <div className="row">
        {!field && (
          <TextField
            label="Field name"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(save.error, "name")}
          />
        )}
        <TextField
          label="Description"
          // Opened to edit: the keyboard lands in the form, not back at the top of the page.
          autoFocus={field !== undefined}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(save.error, "description")}
        />
      </div>
      <LegalValuesEditor values={legalValues} onChange={setLegalValues} error={valuesError} />
      <label className="check">
        <input type="checkbox" checked={stickiness} onChange={(e) => setStickiness(e.target.checked)} /> Usable as stickiness
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {field ? "Save context field" : "Create context field"}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {!shownAtField && <ErrorNote error={save.error} />}
    </form>
  );
}

/** The values constraints on the field may use, each with an optional description. */
function LegalValuesEditor({
  values,
  onChange,
  error,
}: {
  values: LegalValue[];
  onChange: (values: LegalValue[]) => void;
  error?: string;
}) {
  const errorId = useId();
  // A row added from the keyboard takes the focus, so typing goes on where the row appeared.
  const [added, setAdded] = useState<number>();
  const update = (index: number, change: Partial<LegalValue>) => onChange(values.map((v, i) => (i === index ? { ...v, ...change } : v)));
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Legal values</legend>
      {values.length === 0 && <p className="hint">None: constraints on this field may use any value.</p>}
      {values.map((value, index) => (
        <div className="row" role="group" aria-label={`Legal value ${index + 1}`} key={index}>
          <TextField
            label="Value"
            required
            autoFocus={index === added}
            value={value.value}
            onChange={(e) => update(index, { value: e.target.value })}
          />
          <TextField
            label="Value description"
            value={value.description ?? ""}
            onChange={(e) => update(index, { description: e.target.value || undefined })}
          />
          <button type="button" className="danger align-end" onClick={() => onChange(values.filter((_, i) => i !== index))}>
            Remove legal value {value.value || index + 1}
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => {
          setAdded(values.length);
          onChange([...values, { value: "" }]);
        }}
      >
        Add legal value
      </button>
      {error && (
        <div className="field-error" id={errorId} role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}
