import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { maskedParameterValue, type Addon, type AddonProviderDefinition } from "@vexil/contracts";
import { useId, useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { useAllEnvironments } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { integrationNames, providerName } from "./integration-names.js";

/** Addons (webhook, Slack, Teams, Datadog): what they send, where, and how each delivery went. */
export function IntegrationsPage() {
  const queryClient = useQueryClient();
  const addons = useQuery({ queryKey: keys.addons, queryFn: () => ok(adminApi.addons.list()) });
  const [editing, setEditing] = useState<Addon | "new" | undefined>();
  const [log, setLog] = useState<number | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.addons });
  const setEnabled = useMutation({
    // The masked values are sent back as they came: the server keeps the stored secrets.
    mutationFn: (addon: Addon) =>
      ok(
        adminApi.addons.update({
          params: { id: addon.id },
          body: {
            provider: addon.provider,
            description: addon.description ?? undefined,
            enabled: !addon.enabled,
            parameters: addon.parameters,
            events: addon.events,
            projects: addon.projects,
            environments: addon.environments,
          },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: number) => ok(adminApi.addons.remove({ params: { id } })), onSuccess: refresh });
  const providers = addons.data?.providers ?? [];
  const names = integrationNames(addons.data?.addons ?? [], providers);
  return (
    <section>
      <div className="page-head">
        <h1>Integrations</h1>
        <button type="button" id="new-integration" className="primary" onClick={() => setEditing("new")}>
          New integration
        </button>
      </div>
      {editing && providers.length > 0 && (
        <AddonForm
          key={editing === "new" ? "new" : editing.id}
          providers={providers}
          addon={editing === "new" ? undefined : editing}
          name={editing === "new" ? undefined : names.get(editing.id)}
          onDone={() => {
            // Back on the button that opened the form, so keyboard users keep their place.
            const opener = editing === "new" ? "new-integration" : `edit-integration-${editing.id}`;
            setEditing(undefined);
            requestAnimationFrame(() => document.getElementById(opener)?.focus());
          }}
        />
      )}
      <ErrorNote error={addons.error ?? setEnabled.error ?? remove.error} />
      {addons.data?.addons.length === 0 && (
        <p className="empty">No integrations. Send flag changes to a webhook, Slack, Teams or Datadog.</p>
      )}
      {(addons.data?.addons.length ?? 0) > 0 && (
        <table aria-label="Integrations">
          <thead>
            <tr>
              <th scope="col">Integration</th>
              <th scope="col">Events</th>
              <th scope="col">Projects</th>
              <th scope="col">Environments</th>
              <th scope="col">Enabled</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {addons.data!.addons.map((addon) => (
              <tr key={addon.id}>
                <td>
                  {names.get(addon.id)}
                  {addon.description && <div className="hint">{providerName(addon, providers)}</div>}
                </td>
                <td>{addon.events.join(", ")}</td>
                <td>{scopeText(addon.projects)}</td>
                <td>{scopeText(addon.environments)}</td>
                <td>
                  <input
                    type="checkbox"
                    role="switch"
                    className="switch"
                    aria-label={`${names.get(addon.id)} enabled`}
                    checked={addon.enabled}
                    onChange={() => setEnabled.mutate(addon)}
                  />
                </td>
                <td className="actions">
                  <button type="button" id={`edit-integration-${addon.id}`} onClick={() => setEditing(addon)}>
                    Edit {names.get(addon.id)}
                  </button>
                  <button type="button" onClick={() => setLog(log === addon.id ? undefined : addon.id)} aria-expanded={log === addon.id}>
                    Deliveries of {names.get(addon.id)}
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm(`Delete the integration ${names.get(addon.id)}?`) && remove.mutate(addon.id)}
                  >
                    Delete {names.get(addon.id)}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {log !== undefined && <DeliveryLog id={log} name={names.get(log) ?? ""} />}
    </section>
  );
}

interface AddonFormProps {
  providers: AddonProviderDefinition[];
  addon?: Addon;
  /** The integration's name on the screen, when editing one. */
  name?: string;
  onDone: () => void;
}

function AddonForm({ providers, addon, name, onDone }: AddonFormProps) {
  const queryClient = useQueryClient();
  const [providerName, setProviderName] = useState(addon?.provider ?? providers[0]!.name);
  const provider = providers.find((p) => p.name === providerName)!;
  const [description, setDescription] = useState(addon?.description ?? "");
  const [parameters, setParameters] = useState<Record<string, unknown>>(addon?.parameters ?? {});
  const [events, setEvents] = useState<string[]>(addon?.events ?? ["feature-created", "feature-updated"]);
  const [projects, setProjects] = useState<string[]>(addon?.projects ?? []);
  const [environments, setEnvironments] = useState<string[]>(addon?.environments ?? []);
  const projectList = useQuery({ queryKey: keys.projects, queryFn: () => ok(adminApi.projects.list()) });
  const environmentList = useAllEnvironments();
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        provider: providerName,
        description,
        enabled: addon?.enabled ?? true,
        parameters,
        events,
        projects,
        environments,
      };
      if (addon) await ok(adminApi.addons.update({ params: { id: addon.id }, body }));
      else await ok(adminApi.addons.create({ body }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.addons });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="card" aria-label={addon ? `Edit ${name}` : "New integration"}>
      <div className="row">
        <SelectField
          label="Provider"
          // Opened from the keyboard, typing goes on in the form.
          autoFocus={addon === undefined}
          value={providerName}
          disabled={addon !== undefined}
          onChange={(e) => (setProviderName(e.target.value), setParameters({}))}
        >
          {providers.map((p) => (
            <option key={p.name} value={p.name}>
              {p.displayName}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Description"
          autoFocus={addon !== undefined}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <p className="hint">{provider.description}</p>
      <div className="row">
        {provider.parameters.map((p) => (
          <TextField
            key={p.name}
            label={p.displayName}
            required={p.required}
            // Sensitive values come back masked; left as they are, the stored value is kept.
            type={p.type === "url" ? "url" : p.sensitive ? "password" : "text"}
            autoComplete="off"
            placeholder={p.placeholder}
            hint={p.sensitive && parameters[p.name] === maskedParameterValue ? "Stored; type to replace it." : p.description}
            value={String(parameters[p.name] ?? "")}
            onChange={(e) => setParameters({ ...parameters, [p.name]: e.target.value })}
            error={fieldError(save.error, `parameters.${p.name}`)}
          />
        ))}
      </div>
      <Choices
        legend="Events to send"
        options={provider.events}
        chosen={events}
        onChange={setEvents}
        error={fieldError(save.error, "events")}
      />
      <Choices
        legend="Projects"
        hint="None chosen: events of every project, including projects created later."
        options={projectList.data?.projects.map((p) => p.id) ?? []}
        chosen={projects}
        onChange={setProjects}
        error={fieldError(save.error, "projects")}
      />
      <Choices
        legend="Environments"
        hint="None chosen: every environment. With some chosen, events that belong to no environment (such as a flag created) are not sent."
        options={environmentList.data?.environments.map((e) => e.name) ?? []}
        chosen={environments}
        onChange={setEnvironments}
        error={fieldError(save.error, "environments")}
      />
      <ErrorNote error={projectList.error ?? environmentList.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save integration
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {!fieldError(save.error, "parameters") && !fieldError(save.error, "events") && <ErrorNote error={save.error} />}
    </form>
  );
}

/** "all" for an empty scope, as the API reads it. */
function scopeText(scope: string[] | undefined): string {
  return scope?.length ? scope.join(", ") : "all";
}

/** A set of checkboxes under one legend; the chosen values keep the order they were chosen in. */
function Choices({
  legend,
  hint,
  options,
  chosen,
  onChange,
  error,
}: {
  legend: string;
  hint?: string;
  options: string[];
  chosen: string[];
  onChange: (chosen: string[]) => void;
  error?: string;
}) {
  const id = useId();
  // A stored choice no longer offered (a deleted project) stays visible, so it can be unticked.
  const shown = [...options, ...chosen.filter((value) => !options.includes(value))];
  return (
    <fieldset aria-describedby={[hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div className="checks">
        {shown.map((value) => (
          <label className="check" key={value}>
            <input
              type="checkbox"
              checked={chosen.includes(value)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, value] : chosen.filter((v) => v !== value))}
            />{" "}
            {value}
          </label>
        ))}
      </div>
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}

function DeliveryLog({ id, name }: { id: number; name: string }) {
  const deliveries = useQuery({
    queryKey: keys.addonDeliveries(id),
    queryFn: () => ok(adminApi.addons.events({ params: { id }, query: { limit: 50 } })),
  });
  return (
    <section className="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries of {name}</h2>
      <ErrorNote error={deliveries.error} />
      {deliveries.data?.integrationEvents.length === 0 && <p className="hint">Nothing delivered yet.</p>}
      {(deliveries.data?.integrationEvents.length ?? 0) > 0 && (
        <table aria-label={`Deliveries of ${name}`}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Answer</th>
              <th scope="col">Attempt</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data!.integrationEvents.map((d) => (
              <tr key={d.id}>
                <td>{new Date(d.createdAt).toLocaleString()}</td>
                <td>{d.details.eventType}</td>
                <td>
                  {d.state}
                  <div className="hint">{d.stateDetails}</div>
                </td>
                <td>{d.details.statusCode ?? "no answer"}</td>
                <td>{d.details.attempt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
