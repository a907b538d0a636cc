import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ContextField } from "@vexil/contracts";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote } from "../../components/forms.js";
import { ContextFieldForm } from "./ContextFieldForm.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";

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
  const remove = useResourceMutation({
    mutate: (fieldName: string) => ok(adminApi.context.delete({ params: { name: fieldName } })),
    invalidates: [keys.contextFields, keys.strategyChoices],
    confirm: (fieldName) => `Delete the context field ${fieldName}?`,
    done: (_, fieldName) => `Context field ${fieldName} deleted`,
  });
  const columns: Column<ContextField>[] = [
    {
      header: "Field",
      cell: (field) => (
        <>
          {field.name}
          {field.description && <div className="hint">{field.description}</div>}
        </>
      ),
      sortBy: (field) => field.name,
    },
    {
      header: "Legal values",
      cell: (field) =>
        field.legalValues.length === 0
          ? "any"
          : field.legalValues.map((v) => (v.description ? `${v.value} (${v.description})` : v.value)).join(", "),
      narrowHidden: true,
    },
    { header: "Stickiness", cell: (field) => (field.stickiness ? "yes" : "no"), sortBy: (field) => (field.stickiness ? 1 : 0) },
    { header: "Used in", cell: (field) => `${field.usedInFeatures ?? 0} flags`, sortBy: (field) => field.usedInFeatures ?? 0 },
    {
      header: "Actions",
      actions: true,
      cell: (field) => (
        <>
          <button
            type="button"
            id={`edit-context-${field.name}`}
            aria-expanded={editing === field.name}
            onClick={() => setEditing(editing === field.name ? undefined : field.name)}
          >
            Edit {field.name}
          </button>
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(field.name)}>
            Delete {field.name}
          </button>
        </>
      ),
    },
  ];
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
      {!fields.error && (
        <DataTable
          label="Context fields"
          noun="context fields"
          columns={columns}
          rows={fields.data}
          rowKey={(field) => field.name}
          empty="No context fields."
        />
      )}
    </section>
  );
}
