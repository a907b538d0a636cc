import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Constraint, Segment } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";
import { useStrategyChoices } from "../../queries.js";
import { cleanConstraints, ConstraintsEditor } from "../flag/ConstraintsEditor.js";
import { keys } from "../../query-keys.js";
import { useResourceList, useResourceMutation } from "../../resource.js";

/** Reusable sets of constraints that strategies refer to by id. */
export function SegmentsPage() {
  const segments = useResourceList({ key: keys.segments, list: () => ok(adminApi.segments.list()), rows: (data) => data.segments });
  const [editing, setEditing] = useState<Segment | "new" | undefined>();
  const remove = useResourceMutation({
    mutate: (segment: Segment) => ok(adminApi.segments.delete({ params: { id: segment.id } })),
    invalidates: [keys.segments, keys.strategyChoices],
    confirm: (segment) => `Delete the segment ${segment.name}?`,
    done: (_, segment) => `Segment ${segment.name} deleted`,
  });
  const columns: Column<Segment>[] = [
    {
      header: "Segment",
      cell: (segment) => (
        <>
          {segment.name}
          {segment.description && <div className="hint">{segment.description}</div>}
        </>
      ),
      sortBy: (segment) => segment.name,
    },
    {
      header: "Constraints",
      cell: (segment) =>
        segment.constraints.map((c) => `${c.contextName} ${c.operator} ${c.values?.join(", ") ?? c.value ?? ""}`).join("; "),
      narrowHidden: true,
    },
    {
      header: "Used in",
      cell: (segment) => `${segment.usedInFeatures ?? 0} flags, ${segment.usedInProjects ?? 0} projects`,
      sortBy: (segment) => segment.usedInFeatures ?? 0,
    },
    {
      header: "Actions",
      actions: true,
      cell: (segment) => (
        <>
          <button type="button" onClick={() => setEditing(segment)}>
            Edit {segment.name}
          </button>
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(segment)}>
            Delete {segment.name}
          </button>
        </>
      ),
    },
  ];
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
      <ErrorNote error={segments.query.error ?? remove.error} />
      {!segments.query.error && (
        <DataTable
          label="Segments"
          noun="segments"
          columns={columns}
          rows={segments.rows}
          rowKey={(segment) => segment.id}
          empty="No segments. A segment names a group of users (say, beta testers) once, for many flags."
        />
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
