import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Feature } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { flagPath } from "../../paths.js";

export function FlagTags({ flagName }: { flagName: string }) {
  const queryClient = useQueryClient();
  const tagsKey = keys.flagTags(flagName);
  const tags = useQuery({ queryKey: tagsKey, queryFn: () => ok(adminApi.tags.listFeatureTags({ params: { featureName: flagName } })) });
  const types = useQuery({ queryKey: keys.tagTypes, queryFn: () => ok(adminApi.tags.listTypes()) });
  const [type, setType] = useState("");
  const [value, setValue] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: tagsKey });
  const add = useMutation({
    mutationFn: () =>
      ok(
        adminApi.tags.addFeatureTag({
          params: { featureName: flagName },
          body: { type: type || types.data?.tagTypes[0]?.name || "simple", value },
        }),
      ),
    onSuccess: async () => {
      setValue("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (tag: { type: string; value: string }) => ok(adminApi.tags.removeFeatureTag({ params: { featureName: flagName, ...tag } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <section className="card" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <ErrorNote error={tags.error ?? remove.error} />
      {tags.data?.tags.length === 0 && <p className="hint">No tags yet: add one below to find and filter this flag by it.</p>}
      <ul className="tags">
        {tags.data?.tags.map((tag) => (
          <li key={`${tag.type}:${tag.value}`}>
            {tag.type}: {tag.value}{" "}
            <button
              type="button"
              onClick={() => confirm(`Remove the tag ${tag.type}: ${tag.value}?`) && remove.mutate(tag)}
              aria-label={`Remove tag ${tag.type}: ${tag.value}`}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="row">
        <SelectField label="Tag type" value={type} onChange={(e) => setType(e.target.value)}>
          {types.data?.tagTypes.map((t) => (
            <option key={t.name}>{t.name}</option>
          ))}
        </SelectField>
        <TextField
          label="Tag value"
          required
          value={value}
          onChange={(e) => setValue(e.target.value)}
          error={fieldError(add.error, "value")}
        />
        <button type="submit" className="align-end" disabled={add.isPending}>
          Add tag
        </button>
      </form>
      {!fieldError(add.error, "value") && <ErrorNote error={add.error} />}
    </section>
  );
}

export function FlagDependencies({ projectId, flag }: { projectId: string; flag: Feature }) {
  const queryClient = useQueryClient();
  const [parent, setParent] = useState("");
  const [parentEnabled, setParentEnabled] = useState(true);
  const params = { projectId, featureName: flag.name };
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.flag(projectId, flag.name) });
  const add = useMutation({
    mutationFn: () =>
      ok(adminApi.dependenciesAndLifecycle.addDependency({ params, body: { feature: parent, enabled: parentEnabled, variants: [] } })),
    onSuccess: async () => {
      setParent("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (parentName: string) =>
      ok(adminApi.dependenciesAndLifecycle.removeDependency({ params: { ...params, parent: parentName } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <section className="card" aria-labelledby="dependencies-title">
      <h2 id="dependencies-title">Dependencies</h2>
      {(flag.dependencies ?? []).length === 0 && <p className="hint">This flag depends on no other flag.</p>}
      <ul>
        {(flag.dependencies ?? []).map((d) => (
          <li key={d.feature}>
            Needs <Link href={flagPath(projectId, d.feature)}>{d.feature}</Link> {d.enabled === false ? "off" : "on"}
            {d.variants?.length ? ` with variant ${d.variants.join(" or ")}` : ""}{" "}
            <button
              type="button"
              onClick={() =>
                confirm(`Remove the dependency on ${d.feature}? This flag no longer waits for it.`) && remove.mutate(d.feature)
              }
              aria-label={`Remove dependency on ${d.feature}`}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {(flag.children ?? []).length > 0 && <p className="hint">Flags that depend on this one: {flag.children!.join(", ")}</p>}
      <form onSubmit={submit} className="row">
        <TextField
          label="Parent flag"
          required
          value={parent}
          onChange={(e) => setParent(e.target.value)}
          error={fieldError(add.error, "feature")}
        />
        <label className="check align-end">
          <input type="checkbox" checked={parentEnabled} onChange={(e) => setParentEnabled(e.target.checked)} /> Parent must be on
        </label>
        <button type="submit" className="align-end" disabled={add.isPending}>
          Add dependency
        </button>
      </form>
      <ErrorNote error={(!fieldError(add.error, "feature") && add.error) || remove.error} />
    </section>
  );
}

export function FlagHistory({ flagName }: { flagName: string }) {
  const events = useQuery({
    queryKey: keys.flagEvents(flagName),
    queryFn: () => ok(adminApi.events.forFeature({ params: { featureName: flagName }, query: { limit: 25 } })),
  });
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorNote error={events.error} />
      {events.data?.events.length === 0 && <p className="hint">No events yet: changes to this flag will be listed here.</p>}
      {events.data && events.data.events.length > 0 && (
        <table aria-label="Events of this flag">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Environment</th>
              <th scope="col">Who</th>
            </tr>
          </thead>
          <tbody>
            {events.data.events.map((event) => (
              <tr key={event.id}>
                <td>{new Date(event.createdAt).toLocaleString()}</td>
                <td>{event.type}</td>
                <td>{event.environment ?? "—"}</td>
                <td>{event.createdBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {events.data && events.data.totalEvents > events.data.events.length && (
        <p className="hint">
          The latest {events.data.events.length} of {events.data.totalEvents} events.
        </p>
      )}
    </section>
  );
}
