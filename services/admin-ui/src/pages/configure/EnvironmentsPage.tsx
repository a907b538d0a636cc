import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Environment } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { useAllEnvironments } from "../../queries.js";

/** Unleash's environment types; they drive lifecycle stages and the health report. */
const environmentTypes = ["development", "test", "preproduction", "production"];

function TypeOptions({ current }: { current?: string }) {
  const types = current && !environmentTypes.includes(current) ? [...environmentTypes, current] : environmentTypes;
  return types.map((type) => <option key={type}>{type}</option>);
}

/**
 * The installation's environments: create, change type and order, switch on and off, delete.
 * Protected environments can be switched but not changed or deleted, as in Unleash.
 */
export function EnvironmentsPage() {
  const queryClient = useQueryClient();
  const environments = useAllEnvironments();
  const [editing, setEditing] = useState<string | undefined>();
  // Environments show up in projects, flags and tokens: refresh every screen's data.
  const refresh = () => queryClient.invalidateQueries();
  const setEnabled = useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) =>
      ok(enabled ? adminApi.environments.enable({ params: { name } }) : adminApi.environments.disable({ params: { name } })),
    onSettled: refresh,
  });
  const sort = useMutation({
    mutationFn: (names: string[]) => ok(adminApi.environments.sortOrder({ body: Object.fromEntries(names.map((n, i) => [n, i + 1])) })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (name: string) => ok(adminApi.environments.delete({ params: { name } })),
    onSuccess: refresh,
  });
  const list = environments.data?.environments ?? [];
  const move = (index: number, by: -1 | 1) => {
    const names = list.map((e) => e.name);
    [names[index], names[index + by]] = [names[index + by]!, names[index]!];
    sort.mutate(names);
  };
  const edited = list.find((e) => e.name === editing);
  const closeEditor = (name: string) => {
    setEditing(undefined);
    requestAnimationFrame(() => document.getElementById(`edit-environment-${name}`)?.focus());
  };
  /** A failed action on one environment, shown in its row. */
  const rowError = (name: string) =>
    (setEnabled.variables?.name === name && setEnabled.error) || (remove.variables === name && remove.error) || undefined;
  return (
    <section>
      <h1>Environments</h1>
      <NewEnvironment onCreated={refresh} />
      {edited && (
        <EditEnvironment
          key={edited.name}
          environment={edited}
          onSaved={() => refresh().then(() => closeEditor(edited.name))}
          onCancel={() => closeEditor(edited.name)}
        />
      )}
      <ErrorNote error={environments.error ?? sort.error} />
      {list.length > 0 && (
        <table aria-label="Environments">
          <thead>
            <tr>
              <th scope="col">Environment</th>
              <th scope="col">Type</th>
              <th scope="col">Enabled</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((environment, index) => (
              <tr key={environment.name}>
                <td>
                  {environment.name}
                  {environment.protected && <span className="badge">protected</span>}
                </td>
                <td>{environment.type}</td>
                <td>
                  <input
                    type="checkbox"
                    role="switch"
                    className="switch"
                    aria-label={`Environment ${environment.name} enabled`}
                    checked={environment.enabled}
                    disabled={setEnabled.isPending}
                    onChange={(e) => setEnabled.mutate({ name: environment.name, enabled: e.target.checked })}
                  />
                </td>
                <td className="actions">
                  <button
                    type="button"
                    id={`edit-environment-${environment.name}`}
                    aria-expanded={editing === environment.name}
                    disabled={environment.protected}
                    onClick={() => setEditing(editing === environment.name ? undefined : environment.name)}
                  >
                    Edit {environment.name}
                  </button>
                  <button type="button" disabled={index === 0 || sort.isPending} onClick={() => move(index, -1)}>
                    Move {environment.name} up
                  </button>
                  <button type="button" disabled={index === list.length - 1 || sort.isPending} onClick={() => move(index, 1)}>
                    Move {environment.name} down
                  </button>
                  <button
                    type="button"
                    className="danger"
                    disabled={environment.protected}
                    onClick={() => confirm(`Delete the environment ${environment.name}?`) && remove.mutate(environment.name)}
                  >
                    Delete {environment.name}
                  </button>
                  <ErrorNote error={rowError(environment.name)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function NewEnvironment({ onCreated }: { onCreated: () => Promise<unknown> }) {
  const [name, setName] = useState("");
  const [type, setType] = useState("development");
  const create = useMutation({
    mutationFn: () => ok(adminApi.environments.create({ body: { name, type } })),
    onSuccess: async () => {
      setName("");
      await onCreated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="card row" aria-label="New environment">
      <TextField
        label="Environment name"
        required
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(create.error, "name")}
      />
      <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value)}>
        <TypeOptions />
      </SelectField>
      <button type="submit" className="primary align-end" disabled={create.isPending}>
        Create environment
      </button>
      {!fieldError(create.error, "name") && <ErrorNote error={create.error} />}
    </form>
  );
}

function EditEnvironment({
  environment,
  onSaved,
  onCancel,
}: {
  environment: Environment;
  onSaved: () => Promise<unknown>;
  onCancel: () => void;
}) {
  const [type, setType] = useState(environment.type);
  const [sortOrder, setSortOrder] = useState(String(environment.sortOrder));
  const save = useMutation({
    mutationFn: () =>
      ok(
        adminApi.environments.update({
          params: { name: environment.name },
          // Sent as typed: a number the API cannot take is refused in its words.
          body: { type, sortOrder: sortOrder === "" ? undefined : Number(sortOrder) },
        }),
      ),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const shownAtField = fieldError(save.error, "type") ?? fieldError(save.error, "sortOrder");
  return (
    <form onSubmit={submit} className="card" aria-label={`Edit environment ${environment.name}`}>
      <h2>Edit environment {environment.name}</h2>
      <div className="row">
        <SelectField label="Type" autoFocus value={type} onChange={(e) => setType(e.target.value)} error={fieldError(save.error, "type")}>
          <TypeOptions current={environment.type} />
        </SelectField>
        <TextField
          label="Sort order"
          type="number"
          step="any"
          value={sortOrder}
          onChange={(e) => setSortOrder(e.target.value)}
          error={fieldError(save.error, "sortOrder")}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save environment
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {!shownAtField && <ErrorNote error={save.error} />}
    </form>
  );
}
