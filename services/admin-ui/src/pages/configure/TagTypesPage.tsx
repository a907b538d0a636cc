import type { TagType } from "@vexil/contracts";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, fieldError, ResourceForm, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceList, useResourceMutation } from "../../resource.js";

export function TagTypesPage() {
  const types = useResourceList({ key: keys.tagTypes, list: () => ok(adminApi.tags.listTypes()), rows: (data) => data.tagTypes });
  const remove = useResourceMutation({
    mutate: (name: string) => ok(adminApi.tags.deleteType({ params: { name } })),
    invalidates: [keys.tagTypes, keys.tags],
    confirm: (name) => `Delete the tag type ${name} and its tags?`,
    done: (_, name) => `Tag type ${name} deleted`,
  });
  const columns: Column<TagType>[] = [
    { header: "Tag type", cell: (type) => type.name, sortBy: (type) => type.name },
    { header: "Description", cell: (type) => type.description ?? "" },
    {
      header: "Actions",
      actions: true,
      cell: (type) => (
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(type.name)}>
          Delete {type.name}
        </button>
      ),
    },
  ];
  return (
    <section>
      <h1>Tag types</h1>
      <CreateTagType />
      <ErrorNote error={types.query.error ?? remove.error} />
      {!types.query.error && (
        <DataTable
          label="Tag types"
          noun="tag types"
          columns={columns}
          rows={types.rows}
          rowKey={(t) => t.name}
          empty="No tag types yet."
        />
      )}
    </section>
  );
}

function CreateTagType() {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useResourceMutation({
    mutate: () => ok(adminApi.tags.createType({ body: { name, description: description || null } })),
    invalidates: [keys.tagTypes],
    done: () => `Tag type ${name} created`,
    onSuccess: () => {
      setName("");
      setDescription("");
    },
  });
  return (
    <ResourceForm
      title="New tag type"
      showTitle={false}
      inline
      submitLabel="Create tag type"
      pending={create.isPending}
      error={create.error}
      fields={["name"]}
      onSubmit={() => create.mutate()}
    >
      <TextField
        label="Tag type name"
        required
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(create.error, "name")}
      />
      <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
    </ResourceForm>
  );
}
