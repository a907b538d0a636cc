import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Constraint, Segment } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";
import { useStrategyChoices } from "../../queries.js";
import { cleanConstraints, ConstraintsEditor } from "../flag/ConstraintsEditor.js";
import { keys } from "../../query-keys.js";

/** Reusable sets of constraints that strategies refer to by id. */
export function SegmentsPage() {
  const queryClient = useQueryClient();
  const segments = useQuery({ queryKey: keys.segments, queryFn: () => ok(adminApi.segments.list()) });
  const [editing, setEditing] = useState<Segment | "new" | undefined>();
  const remove = useMutation({
    mutationFn: (id: number) => ok(adminApi.segments.delete({ params: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.segments }),
  });
  return (
    <section>
      <div className="page-head">
        <h1>Segments</h1>
        <button type="button" className="primary" onClick={() => setEditing("new")}>
          New segment
        </button>
      </div>
      {editing && (
        <SegmentForm
          key={editing === "new" ? "new" : editing.id}
          segment={editing === "new" ? undefined : editing}
          onDone={() => setEditing(undefined)}
        />
      )}
      <ErrorNote error={segments.error ?? remove.error} />
      {segments.data?.segments.length === 0 && (
        <p className="empty">No segments. A segment names a group of users (say, beta testers) once, for many flags.</p>
      )}
      {(segments.data?.segments.length ?? 0) > 0 && (
        <table aria-label="Segments">
          <thead>
            <tr>
              <th scope="col">Segment</th>
              <th scope="col">Constraints</th>
              <th scope="col">Used in</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {segments.data!.segments.map((segment) => (
              <tr key={segment.id}>
                <td>
                  {segment.name}
                  {segment.description && <div className="hint">{segment.description}</div>}
                </td>
                <td>
                  {segment.constraints.map((c) => `${c.contextName} ${c.operator} ${c.values?.join(", ") ?? c.value ?? ""}`).join("; ")}
                </td>
                <td>
                  {segment.usedInFeatures ?? 0} flags, {segment.usedInProjects ?? 0} projects
                </td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(segment)}>
                    Edit {segment.name}
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm(`Delete the segment ${segment.name}?`) && remove.mutate(segment.id)}
                  >
                    Delete {segment.name}
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

function SegmentForm({ segment, onDone }: { segment?: Segment; onDone: () => void }) {
  const queryClient = useQueryClient();
  const choices = useStrategyChoices();
  const [name, setName] = useState(segment?.name ?? "");
  const [description, setDescription] = useState(segment?.description ?? "");
  const [constraints, setConstraints] = useState<Constraint[]>(segment?.constraints ?? []);
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || null, constraints: cleanConstraints(constraints) };
      if (segment) await ok(adminApi.segments.update({ params: { id: segment.id }, body }));
      else await ok(adminApi.segments.create({ body }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.segments });
      await queryClient.invalidateQueries({ queryKey: keys.strategyChoices });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="card" aria-label={segment ? `Edit segment ${segment.name}` : "New segment"}>
      <div className="row">
        <TextField
          label="Segment name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, "name")}
        />
        <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <ConstraintsEditor constraints={constraints} onChange={setConstraints} contextNames={choices.data?.contextNames ?? []} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save segment
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {!fieldError(save.error, "name") && <ErrorNote error={save.error} />}
    </form>
  );
}
