import { useMutation, useQuery } from "@tanstack/react-query";
import type { PlaygroundRequest } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { projectsQuery, useAllEnvironments } from "../../queries.js";
import { PlaygroundResults } from "./PlaygroundResults.js";

interface Property {
  key: string;
  value: string;
}

/** Evaluates every flag for a context the way the SDKs would, and shows why each is on or off. */
export function PlaygroundPage() {
  const environments = useAllEnvironments();
  const projects = useQuery(projectsQuery);
  const [environment, setEnvironment] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [fields, setFields] = useState({ appName: "playground", userId: "", sessionId: "", remoteAddress: "", currentTime: "" });
  const [properties, setProperties] = useState<Property[]>([]);
  const run = useMutation({ mutationFn: (body: PlaygroundRequest) => ok(adminApi.playground.evaluate({ body })) });

  const enabledEnvironments = environments.data?.environments.filter((e) => e.enabled) ?? [];
  const selectedEnvironment = environment || enabledEnvironments[0]?.name || "";
  const setField = (name: keyof typeof fields) => (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value });
  const setProperty = (index: number, change: Partial<Property>) =>
    setProperties(properties.map((p, i) => (i === index ? { ...p, ...change } : p)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const context: PlaygroundRequest["context"] = { appName: fields.appName };
    for (const name of ["userId", "sessionId", "remoteAddress"] as const) if (fields[name]) context[name] = fields[name];
    // datetime-local gives local time without a zone; the API takes an ISO 8601 instant.
    if (fields.currentTime) context.currentTime = new Date(fields.currentTime).toISOString();
    const filled = properties.filter((p) => p.key);
    if (filled.length > 0) context.properties = Object.fromEntries(filled.map((p) => [p.key, p.value]));
    run.mutate({ environment: selectedEnvironment, projects: chosen.length > 0 ? chosen : "*", context });
  };

  return (
    <section>
      <div className="page-head">
        <h1>Playground</h1>
      </div>
      <form onSubmit={submit} className="card" aria-label="Playground context">
        <div className="row">
          <SelectField
            label="Environment"
            value={selectedEnvironment}
            onChange={(e) => setEnvironment(e.target.value)}
            error={fieldError(run.error, "environment")}
          >
            {enabledEnvironments.map((e) => (
              <option key={e.name} value={e.name}>
                {e.name}
              </option>
            ))}
          </SelectField>
          <TextField
            label="App name"
            required
            value={fields.appName}
            onChange={setField("appName")}
            error={fieldError(run.error, "context.appName")}
          />
        </div>
        <fieldset>
          <legend>Projects (none chosen: all)</legend>
          <div className="checks">
            {projects.data?.projects.map((project) => (
              <label className="check" key={project.id}>
                <input
                  type="checkbox"
                  checked={chosen.includes(project.id)}
                  onChange={(e) => setChosen(e.target.checked ? [...chosen, project.id] : chosen.filter((id) => id !== project.id))}
                />
                {project.name}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="row">
          <TextField label="User ID" value={fields.userId} onChange={setField("userId")} />
          <TextField label="Session ID" value={fields.sessionId} onChange={setField("sessionId")} />
          <TextField label="Remote address" value={fields.remoteAddress} onChange={setField("remoteAddress")} />
          <TextField
            label="Current time"
            type="datetime-local"
            value={fields.currentTime}
            onChange={setField("currentTime")}
            hint="Empty: now"
            error={fieldError(run.error, "context.currentTime")}
          />
        </div>
        <fieldset>
          <legend>Properties</legend>
          {properties.map((property, index) => (
            <div className="row" key={index}>
              <TextField
                label={`Property ${index + 1} name`}
                value={property.key}
                onChange={(e) => setProperty(index, { key: e.target.value })}
              />
              <TextField
                label={`Property ${index + 1} value`}
                value={property.value}
                onChange={(e) => setProperty(index, { value: e.target.value })}
              />
              <button type="button" className="align-end" onClick={() => setProperties(properties.filter((_, i) => i !== index))}>
                Remove property {index + 1}
              </button>
            </div>
          ))}
          <button type="button" onClick={() => setProperties([...properties, { key: "", value: "" }])}>
            Add property
          </button>
        </fieldset>
        <div className="actions">
          <button type="submit" className="primary" disabled={run.isPending || !selectedEnvironment}>
            Run
          </button>
        </div>
        <ErrorNote error={environments.error ?? projects.error ?? run.error} />
      </form>
      {run.data && <PlaygroundResults result={run.data} />}
    </section>
  );
}
