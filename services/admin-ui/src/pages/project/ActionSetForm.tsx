import { useMutation, useQuery } from "@tanstack/react-query";
import { actionNames, type ActionName, type ActionSet, type Constraint, type ParameterMatch } from "@vexil/contracts";
import { useId, useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { cleanConstraints, ConstraintsEditor } from "../flag/ConstraintsEditor.js";
import { keys } from "../../query-keys.js";

interface EditableAction {
  action: ActionName;
  featureName: string;
  environment: string;
}

const actionLabels: Record<ActionName, string> = {
  TOGGLE_FEATURE_ON: "Turn the flag on",
  TOGGLE_FEATURE_OFF: "Turn the flag off",
};

const filterWording = { legend: "Payload filters (all must match)", item: "filter", field: "Payload path" };

/** The API keys filters by payload path; the constraint editor edits them as constraints on that path. */
function toFilters(payload: Record<string, ParameterMatch>): Constraint[] {
  return Object.entries(payload).map(([contextName, match]) => ({ contextName, ...match }));
}

function toPayload(filters: Constraint[]): Record<string, ParameterMatch> {
  return Object.fromEntries(cleanConstraints(filters).map(({ contextName, ...match }) => [contextName, match]));
}

/** What an action set can refer to: signal endpoints, service accounts and (the first hundred of) the project's flags. */
export function useActionSetChoices(projectId: string) {
  return useQuery({
    queryKey: keys.actionSetChoices(projectId),
    queryFn: async () => {
      const [endpoints, accounts, flags] = await Promise.all([
        ok(adminApi.signalEndpoints.list()),
        ok(adminApi.serviceAccounts.list()),
        ok(adminApi.features.search({ query: { project: `IS:${projectId}`, limit: 100 } })),
      ]);
      return { endpoints: endpoints.signalEndpoints, accounts: accounts.serviceAccounts, flags: flags.features.map((f) => f.name) };
    },
  });
}

/** Creates or replaces an action set: which signals it reacts to, as whom, and what it switches. */
export function ActionSetForm({
  projectId,
  environments,
  actionSet,
  onDone,
}: {
  projectId: string;
  environments: string[];
  actionSet?: ActionSet;
  onDone: () => Promise<unknown> | void;
}) {
  const flagsListId = useId();
  const choices = useActionSetChoices(projectId);
  const [name, setName] = useState(actionSet?.name ?? "");
  const [description, setDescription] = useState(actionSet?.description ?? "");
  const [sourceId, setSourceId] = useState(actionSet?.match.sourceId ?? 0);
  const [actorId, setActorId] = useState(actionSet?.actorId ?? 0);
  const [filters, setFilters] = useState<Constraint[]>(toFilters(actionSet?.match.payload ?? {}));
  const blankAction = (): EditableAction => ({ action: "TOGGLE_FEATURE_ON", featureName: "", environment: environments[0] ?? "" });
  const [actions, setActions] = useState<EditableAction[]>(() =>
    actionSet
      ? [...actionSet.actions]
          .sort((a, b) => a.sortOrder - b.sortOrder)
          .map((a) => ({ action: a.action, featureName: a.executionParams.featureName, environment: a.executionParams.environment }))
      : [blankAction()],
  );
  // Until the lists load, the first endpoint and account are the choice shown.
  const source = sourceId || choices.data?.endpoints[0]?.id || 0;
  const actor = actorId || choices.data?.accounts[0]?.id || 0;
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        description: description || null,
        enabled: actionSet?.enabled ?? true,
        actorId: actor,
        match: { source: "signal-endpoint" as const, sourceId: source, payload: toPayload(filters) },
        actions: actions.map((a, i) => ({
          action: a.action,
          sortOrder: i + 1,
          executionParams: { project: projectId, featureName: a.featureName, environment: a.environment },
        })),
      };
      return actionSet
        ? ok(adminApi.actions.update({ params: { projectId, id: actionSet.id }, body }))
        : ok(adminApi.actions.create({ params: { projectId }, body }));
    },
    onSuccess: onDone,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const setAction = (index: number, changed: Partial<EditableAction>) =>
    setActions(actions.map((a, i) => (i === index ? { ...a, ...changed } : a)));
  const title = actionSet ? `Edit action set ${actionSet.name}` : "New action set";
  const fieldErrors = ["name", "description", "actorId", "match", "actions"];
  const shownNextToField = fieldErrors.some((field) => fieldError(save.error, field));

  return (
    <form onSubmit={submit} className="card" aria-label={title}>
      <h2>{title}</h2>
      <div className="row">
        <TextField
          label="Action set name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, "name")}
        />
        <TextField
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(save.error, "description")}
        />
      </div>
      <div className="row">
        <SelectField
          label="Signal endpoint"
          required
          value={source}
          onChange={(e) => setSourceId(Number(e.target.value))}
          error={fieldError(save.error, "match.sourceId")}
          hint={choices.data?.endpoints.length === 0 ? "No signal endpoints yet: create one under Signals." : undefined}
        >
          {choices.data?.endpoints.map((endpoint) => (
            <option key={endpoint.id} value={endpoint.id}>
              {endpoint.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Run as service account"
          required
          value={actor}
          onChange={(e) => setActorId(Number(e.target.value))}
          error={fieldError(save.error, "actorId")}
          hint={
            choices.data?.accounts.length === 0
              ? "No service accounts yet: create one under Service accounts."
              : "Its root role decides what the actions may change."
          }
        >
          {choices.data?.accounts.map((account) => (
            <option key={account.id} value={account.id}>
              {account.name ?? account.username}
            </option>
          ))}
        </SelectField>
      </div>
      <ConstraintsEditor constraints={filters} onChange={setFilters} contextNames={[]} wording={filterWording} />
      {fieldError(save.error, "match.payload") && (
        <p className="field-error" role="alert">
          {fieldError(save.error, "match.payload")}
        </p>
      )}
      <fieldset className="constraints">
        <legend>Actions (run in this order)</legend>
        <datalist id={flagsListId}>
          {choices.data?.flags.map((flag) => (
            <option key={flag} value={flag} />
          ))}
        </datalist>
        {actions.map((action, index) => (
          <div className="constraint" role="group" aria-label={`Action ${index + 1}`} key={index}>
            <div className="row">
              <SelectField
                label="Action"
                value={action.action}
                onChange={(e) => setAction(index, { action: e.target.value as ActionName })}
              >
                {actionNames.map((a) => (
                  <option key={a} value={a}>
                    {actionLabels[a]}
                  </option>
                ))}
              </SelectField>
              <TextField
                label="Flag"
                required
                list={flagsListId}
                value={action.featureName}
                onChange={(e) => setAction(index, { featureName: e.target.value })}
                error={fieldError(save.error, `actions.${index}`)}
              />
              <SelectField
                label="Environment"
                value={action.environment}
                onChange={(e) => setAction(index, { environment: e.target.value })}
              >
                {environments.map((environment) => (
                  <option key={environment}>{environment}</option>
                ))}
              </SelectField>
              <button
                type="button"
                className="danger align-end"
                disabled={actions.length === 1}
                onClick={() => setActions(actions.filter((_, i) => i !== index))}
              >
                Remove action {index + 1}
              </button>
            </div>
          </div>
        ))}
        <button type="button" onClick={() => setActions([...actions, blankAction()])}>
          Add action
        </button>
        {fieldError(save.error, "actions") && actions.every((_, i) => !fieldError(save.error, `actions.${i}`)) && (
          <p className="field-error" role="alert">
            {fieldError(save.error, "actions")}
          </p>
        )}
      </fieldset>
      <ErrorNote error={choices.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save action set
        </button>
        <button type="button" onClick={() => void onDone()}>
          Cancel
        </button>
      </div>
      {!shownNextToField && <ErrorNote error={save.error} />}
    </form>
  );
}
