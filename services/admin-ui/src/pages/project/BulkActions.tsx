import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { switchFlag } from "../../flag-switch.js";
import type { LoadedProject } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";

type Bulk = { kind: "on" | "off"; environment: string } | { kind: "archive" } | { kind: "tag"; tag: string };

/** Runs one change on each flag in turn (a protected environment's switch goes into a change request). */
async function runOnEach(projectId: string, project: LoadedProject, flags: string[], bulk: Bulk): Promise<void> {
  for (const flag of flags) {
    if (bulk.kind === "archive") await ok(adminApi.features.archive({ params: { projectId, featureName: flag } }));
    else if (bulk.kind === "tag") {
      const [type, ...value] = bulk.tag.split(":");
      await ok(adminApi.tags.addFeatureTag({ params: { featureName: flag }, body: { type: type!, value: value.join(":") } }));
    } else
      await switchFlag({
        projectId,
        flag,
        environment: bulk.environment,
        enabled: bulk.kind === "on",
        protectedEnvironment: project.protectedEnvironments.has(bulk.environment),
      });
  }
}

function doneText(bulk: Bulk, count: number): string {
  const flags = `${count} ${count === 1 ? "flag" : "flags"}`;
  if (bulk.kind === "archive") return `${flags} archived`;
  if (bulk.kind === "tag") return `${flags} tagged ${bulk.tag}`;
  return `${flags} turned ${bulk.kind} in ${bulk.environment}`;
}

/** What can be done to the flags ticked in the table, all at once. */
export function BulkActions({
  projectId,
  project,
  selected,
  onDone,
}: {
  projectId: string;
  project: LoadedProject;
  selected: string[];
  onDone: () => void;
}) {
  const [environment, setEnvironment] = useState(project.environments[0]?.name ?? "");
  const [tag, setTag] = useState("");
  const tags = useQuery({ queryKey: keys.tags, queryFn: () => ok(adminApi.tags.list()), staleTime: 30_000 });
  const bulk = useResourceMutation({
    mutate: (change: Bulk) => runOnEach(projectId, project, selected, change),
    invalidates: [keys.flags(projectId), keys.flagsOf(projectId), keys.project(projectId), keys.archive(projectId), keys.flagSearch],
    // Only archiving asks first (`run`); switching and tagging are undone the same way.
    confirm: () => `Archive ${selected.length} flags? They can be revived from the archive.`,
    done: (_, change) => doneText(change, selected.length),
    onSuccess: onDone,
  });
  const run = (change: Bulk) => (change.kind === "archive" ? bulk.run(change) : bulk.mutate(change));
  return (
    <div className="card bulk" role="group" aria-label="Bulk actions">
      <strong>{selected.length} selected</strong>
      <SelectField label="Environment" value={environment} onChange={(e) => setEnvironment(e.target.value)}>
        {project.environments.map((env) => (
          <option key={env.name}>{env.name}</option>
        ))}
      </SelectField>
      <button type="button" className="align-end" disabled={bulk.isPending} onClick={() => run({ kind: "on", environment })}>
        Turn on
      </button>
      <button type="button" className="align-end" disabled={bulk.isPending} onClick={() => run({ kind: "off", environment })}>
        Turn off
      </button>
      <SelectField label="Tag" value={tag} onChange={(e) => setTag(e.target.value)}>
        <option value="">Choose a tag</option>
        {tags.data?.tags.map((t) => (
          <option key={`${t.type}:${t.value}`} value={`${t.type}:${t.value}`}>
            {t.type}: {t.value}
          </option>
        ))}
      </SelectField>
      <button type="button" className="align-end" disabled={bulk.isPending || !tag} onClick={() => run({ kind: "tag", tag })}>
        Add tag
      </button>
      <button type="button" className="danger align-end" disabled={bulk.isPending} onClick={() => run({ kind: "archive" })}>
        Archive
      </button>
      <ErrorNote error={bulk.error} />
    </div>
  );
}
