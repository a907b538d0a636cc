import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ActionSet } from "@vexil/contracts";
import { useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { ErrorNote } from "../../components/forms.js";
import { SwitchableCard } from "../../components/SwitchableCard.js";
import { ActionSetForm, useActionSetChoices } from "./ActionSetForm.js";
import type { LoadedProject } from "../../queries.js";
import { keys } from "../../query-keys.js";

/** The project's action sets: what a signal from an endpoint switches, as which service account. */
export function ActionSetsPanel({ projectId, project }: { projectId: string; project: LoadedProject }) {
  const queryClient = useQueryClient();
  const actionSets = useQuery({
    queryKey: keys.actionSets(projectId),
    queryFn: () => ok(adminApi.actions.list({ params: { projectId } })),
  });
  const [editing, setEditing] = useState<ActionSet | "new" | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.actionSets(projectId) });
  const setEnabled = useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
      ok(enabled ? adminApi.actions.enable({ params: { projectId, id } }) : adminApi.actions.disable({ params: { projectId, id } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => ok(adminApi.actions.delete({ params: { projectId, id } })),
    onSuccess: refresh,
  });
  const environments = project.environments.map((e) => e.name);
  const done = async () => {
    setEditing(undefined);
    await refresh();
  };

  return (
    <>
      <div className="page-head">
        <p className="hint">
          When a signal arrives at an <Link href="/signals">endpoint</Link> and its payload passes the filters, the actions run in order.
        </p>
        <button type="button" className="primary" onClick={() => setEditing("new")} disabled={editing !== undefined}>
          New action set
        </button>
      </div>
      {editing === "new" && <ActionSetForm projectId={projectId} environments={environments} onDone={done} />}
      <ErrorNote error={actionSets.error ?? setEnabled.error ?? remove.error} />
      {actionSets.data?.actions.length === 0 && editing !== "new" && (
        <p className="empty">No action sets. Create one to switch flags when a monitoring or deploy system sends a signal.</p>
      )}
      {actionSets.data?.actions.map((set) =>
        editing !== undefined && editing !== "new" && editing.id === set.id ? (
          <ActionSetForm key={set.id} projectId={projectId} environments={environments} actionSet={set} onDone={done} />
        ) : (
          <SwitchableCard
            key={set.id}
            name={set.name}
            switchLabel={`Action set ${set.name} enabled`}
            enabled={set.enabled}
            onSwitch={(enabled) => setEnabled.mutate({ id: set.id, enabled })}
            switching={setEnabled.isPending}
            deleteQuestion={`Delete the action set ${set.name} and its run history?`}
            onDelete={() => remove.mutate(set.id)}
            actions={
              <button type="button" onClick={() => setEditing(set)} disabled={editing !== undefined}>
                Edit {set.name}
              </button>
            }
            description={set.description}
          >
            <ActionSetSummary projectId={projectId} set={set} />
            <RecentRuns projectId={projectId} id={set.id} />
          </SwitchableCard>
        ),
      )}
    </>
  );
}

function ActionSetSummary({ projectId, set }: { projectId: string; set: ActionSet }) {
  const choices = useActionSetChoices(projectId);
  const filters = Object.entries(set.match.payload);
  const endpoint = choices.data?.endpoints.find((e) => e.id === set.match.sourceId)?.name ?? `#${set.match.sourceId}`;
  const account = choices.data?.accounts.find((a) => a.id === set.actorId);
  return (
    <ul className="plain-list">
      <li>
        Signals from endpoint {endpoint}
        {filters.length > 0 &&
          ` where ${filters
            .map(([path, m]) => `${path} ${m.inverted ? "NOT " : ""}${m.operator} ${m.values?.join(", ") ?? m.value ?? ""}`)
            .join(" and ")}`}
        , run as service account {account ? (account.name ?? account.username) : `#${set.actorId}`}
      </li>
      {[...set.actions]
        .sort((a, b) => a.sortOrder - b.sortOrder)
        .map((action) => (
          <li key={action.id}>
            {action.action === "TOGGLE_FEATURE_ON" ? "Turn on" : "Turn off"} {action.executionParams.featureName} in{" "}
            {action.executionParams.environment}
          </li>
        ))}
    </ul>
  );
}

function RecentRuns({ projectId, id }: { projectId: string; id: number }) {
  const [open, setOpen] = useState(false);
  const runs = useQuery({
    queryKey: keys.actionSetEvents(projectId, id),
    queryFn: () => ok(adminApi.actions.events({ params: { projectId, id }, query: { limit: 10, offset: 0 } })),
    enabled: open,
  });
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Recent runs</summary>
      <ErrorNote error={runs.error} />
      {runs.data?.actionSetEvents.length === 0 && <p className="hint">No signal has matched yet.</p>}
      <ul className="plain-list">
        {runs.data?.actionSetEvents.map((run) => (
          <li key={run.id}>
            {new Date(run.createdAt).toLocaleString()} · signal from {run.signal.tokenName}: <span className="badge">{run.state}</span>
            {run.actionSet.actions
              .filter((a) => a.state === "failed")
              .map((a) => (
                <div key={a.id} className="field-error">
                  {a.action} {a.executionParams.featureName}: {a.details}
                </div>
              ))}
          </li>
        ))}
      </ul>
    </details>
  );
}
