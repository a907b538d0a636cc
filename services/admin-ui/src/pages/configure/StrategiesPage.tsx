import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

type ParameterType = "string" | "percentage" | "list" | "number" | "boolean";
interface Parameter {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
}

/** The strategy types flags can use: the built-in ones, and custom ones the SDKs implement. */
export function StrategiesPage() {
  const queryClient = useQueryClient();
  const strategies = useQuery({ queryKey: keys.strategies, queryFn: () => ok(adminApi.strategies.list()) });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.strategies }),
      queryClient.invalidateQueries({ queryKey: keys.strategyChoices }),
    ]);
  const setDeprecated = useMutation({
    mutationFn: ({ name, deprecated }: { name: string; deprecated: boolean }) =>
      ok(deprecated ? adminApi.strategies.deprecate({ params: { name } }) : adminApi.strategies.reactivate({ params: { name } })),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (name: string) => ok(adminApi.strategies.delete({ params: { name } })), onSuccess: refresh });
  return (
    <section>
      <h1>Strategy types</h1>
      <CreateStrategy onCreated={refresh} />
      <ErrorNote error={strategies.error ?? setDeprecated.error ?? remove.error} />
      <table aria-label="Strategy types">
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Parameters</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {strategies.data?.strategies.map((s) => (
            <tr key={s.name}>
              <td>
                {s.displayName || s.name} {s.deprecated && <span className="badge warn">deprecated</span>}
                {!s.editable && <span className="badge">built in</span>}
                {s.description && <div className="hint">{s.description}</div>}
              </td>
              <td>{s.parameters.map((p) => `${p.name} (${p.type}${p.required ? ", required" : ""})`).join(", ") || "—"}</td>
              <td className="actions">
                <button type="button" onClick={() => setDeprecated.mutate({ name: s.name, deprecated: !s.deprecated })}>
                  {s.deprecated ? "Reactivate" : "Deprecate"} {s.name}
                </button>
                {s.editable && (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm(`Delete the strategy type ${s.name}?`) && remove.mutate(s.name)}
                  >
                    Delete {s.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function CreateStrategy({ onCreated }: { onCreated: () => Promise<unknown> }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [parameters, setParameters] = useState<Parameter[]>([]);
  const create = useMutation({
    mutationFn: () => ok(adminApi.strategies.create({ body: { name, description: description || null, parameters } })),
    onSuccess: async () => {
      setName("");
      setDescription("");
      setParameters([]);
      await onCreated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const update = (index: number, change: Partial<Parameter>) =>
    setParameters(parameters.map((p, i) => (i === index ? { ...p, ...change } : p)));
  return (
    <form onSubmit={submit} className="card" aria-label="New strategy type">
      <h2>New strategy type</h2>
      <div className="row">
        <TextField
          label="Strategy name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
        />
        <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      {parameters.map((p, index) => (
        <div className="row" key={index} role="group" aria-label={`Parameter ${index + 1}`}>
          <TextField label="Parameter name" required value={p.name} onChange={(e) => update(index, { name: e.target.value })} />
          <SelectField label="Parameter type" value={p.type} onChange={(e) => update(index, { type: e.target.value as ParameterType })}>
            {["string", "percentage", "list", "number", "boolean"].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </SelectField>
          <TextField label="Parameter description" value={p.description} onChange={(e) => update(index, { description: e.target.value })} />
          <label className="check align-end">
            <input type="checkbox" checked={p.required} onChange={(e) => update(index, { required: e.target.checked })} /> Required
          </label>
          <button type="button" className="danger align-end" onClick={() => setParameters(parameters.filter((_, i) => i !== index))}>
            Remove parameter {index + 1}
          </button>
        </div>
      ))}
      <div className="actions">
        <button
          type="button"
          onClick={() => setParameters([...parameters, { name: "", type: "string", description: "", required: false }])}
        >
          Add parameter
        </button>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create strategy type
        </button>
      </div>
      {!fieldError(create.error, "name") && <ErrorNote error={create.error} />}
    </form>
  );
}
