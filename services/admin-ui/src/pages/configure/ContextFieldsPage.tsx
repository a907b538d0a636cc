import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote } from "../../components/forms.js";
import { ContextFieldForm } from "./ContextFieldForm.js";
import { keys } from "../../query-keys.js";

/** The fields constraints and custom stickiness refer to, with their allowed values. */
export function ContextFieldsPage() {
  const queryClient = useQueryClient();
  const fields = useQuery({ queryKey: keys.contextFields, queryFn: () => ok(adminApi.context.list()) });
  const [editing, setEditing] = useState<string | undefined>();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.contextFields }),
      queryClient.invalidateQueries({ queryKey: keys.strategyChoices }),
    ]);
  const remove = useMutation({
    mutationFn: (fieldName: string) => ok(adminApi.context.delete({ params: { name: fieldName } })),
    onSuccess: refresh,
  });
  const editedField = fields.data?.find((f) => f.name === editing);
  // Back on the button that opened the form, so keyboard users keep their place.
  const closeEditor = (name: string) => {
    setEditing(undefined);
    requestAnimationFrame(() => document.getElementById(`edit-context-${name}`)?.focus());
  };
  return (
    <section>
      <h1>Context fields</h1>
      <ContextFieldForm onSaved={refresh} />
      {editedField && (
        <ContextFieldForm
          key={editedField.name}
          field={editedField}
          onSaved={() => refresh().then(() => closeEditor(editedField.name))}
          onCancel={() => closeEditor(editedField.name)}
        />
      )}
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
                <td>
                  {field.legalValues.length === 0
                    ? "any"
                    : field.legalValues.map((v) => (v.description ? `${v.value} (${v.description})` : v.value)).join(", ")}
                </td>
                <td>{field.stickiness ? "yes" : "no"}</td>
                <td>{field.usedInFeatures ?? 0} flags</td>
                <td className="actions">
                  <button
                    type="button"
                    id={`edit-context-${field.name}`}
                    aria-expanded={editing === field.name}
                    onClick={() => setEditing(editing === field.name ? undefined : field.name)}
                  >
                    Edit {field.name}
                  </button>
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
