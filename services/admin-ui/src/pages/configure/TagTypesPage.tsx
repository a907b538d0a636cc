import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";

const typesKey = ["tag-types"];

export function TagTypesPage() {
  const queryClient = useQueryClient();
  const types = useQuery({ queryKey: typesKey, queryFn: () => ok(adminApi.tags.listTypes()) });
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: typesKey });
  const create = useMutation({
    mutationFn: () => ok(adminApi.tags.createType({ body: { name, description: description || null } })),
    onSuccess: async () => {
      setName("");
      setDescription("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (typeName: string) => ok(adminApi.tags.deleteType({ params: { name: typeName } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <h1>Tag types</h1>
      <form onSubmit={submit} className="card row" aria-label="New tag type">
        <TextField
          label="Tag type name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
        />
        <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
        <button type="submit" className="primary align-end" disabled={create.isPending}>
          Create tag type
        </button>
        {!fieldError(create.error, "name") && <ErrorNote error={create.error} />}
      </form>
      <ErrorNote error={types.error ?? remove.error} />
      <ul className="plain-list">
        {types.data?.tagTypes.map((type) => (
          <li key={type.name}>
            <strong>{type.name}</strong> {type.description && <span className="hint">{type.description}</span>}{" "}
            <button
              type="button"
              className="danger"
              onClick={() => confirm(`Delete the tag type ${type.name} and its tags?`) && remove.mutate(type.name)}
            >
              Delete {type.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
