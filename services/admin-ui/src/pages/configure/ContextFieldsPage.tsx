import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";

const contextKey = ["context-fields"];

/** The fields constraints and custom stickiness refer to, with their allowed values. */
export function ContextFieldsPage() {
  const queryClient = useQueryClient();
  const fields = useQuery({ queryKey: contextKey, queryFn: () => ok(adminApi.context.list()) });
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [stickiness, setStickiness] = useState(false);
  const [legalValues, setLegalValues] = useState("");
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: contextKey }),
      queryClient.invalidateQueries({ queryKey: ["strategy-choices"] }),
    ]);
  const create = useMutation({
    mutationFn: () =>
      ok(
        adminApi.context.create({
          body: {
            name,
            description: description || null,
            stickiness,
            legalValues: legalValues
              .split("\n")
              .map((v) => v.trim())
              .filter(Boolean)
              .map((value) => ({ value })),
          },
        }),
      ),
    onSuccess: async () => {
      setName("");
      setDescription("");
      setLegalValues("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (fieldName: string) => ok(adminApi.context.delete({ params: { name: fieldName } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <h1>Context fields</h1>
      <form onSubmit={submit} className="card" aria-labelledby="new-context-title">
        <h2 id="new-context-title">New context field</h2>
        <div className="row">
          <TextField
            label="Field name"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(create.error, "name")}
          />
          <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="legal-values">Legal values (one per line, optional)</label>
          <textarea id="legal-values" rows={3} value={legalValues} onChange={(e) => setLegalValues(e.target.value)} />
          {fieldError(create.error, "legalValues") && <div className="field-error">{fieldError(create.error, "legalValues")}</div>}
        </div>
        <label className="check">
          <input type="checkbox" checked={stickiness} onChange={(e) => setStickiness(e.target.checked)} /> Usable as stickiness
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create context field
        </button>
        {!fieldError(create.error, "name") && !fieldError(create.error, "legalValues") && <ErrorNote error={create.error} />}
      </form>
      <ErrorNote error={fields.error ?? remove.error} />
      {fields.data && (
        <table aria-label="Context fields">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Legal values</th>
              <th scope="col">Stickiness</th>
              <th scope="col">Used in</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {fields.data.map((field) => (
              <tr key={field.name}>
                <td>
                  {field.name}
                  {field.description && <div className="hint">{field.description}</div>}
                </td>
                <td>{field.legalValues.map((v) => v.value).join(", ") || "any"}</td>
                <td>{field.stickiness ? "yes" : "no"}</td>
                <td>{field.usedInFeatures ?? 0} flags</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm(`Delete the context field ${field.name}?`) && remove.mutate(field.name)}
                  >
                    Delete {field.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
