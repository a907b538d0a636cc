import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Constraint, FeatureStrategy, StrategyFields } from "@vexil/contracts";
import { useId, useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { toEditable, toVariants, VariantsEditor, weightProblem, type EditableVariant } from "../../components/VariantsEditor.js";
import { useStrategyChoices } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { cleanConstraints, ConstraintsEditor } from "./ConstraintsEditor.js";

export interface StrategyTarget {
  projectId: string;
  flag: string;
  environment: string;
  /** Changes go through a change request. */
  protectedEnvironment: boolean;
}

/** Saves a strategy directly, or proposes it in a change request where the environment needs one. */
async function saveStrategy(target: StrategyTarget, fields: StrategyFields, id: string | undefined): Promise<{ changeRequestId?: number }> {
  const { projectId, flag, environment } = target;
  if (target.protectedEnvironment) {
    const change = id
      ? { action: "updateStrategy" as const, feature: flag, payload: { ...fields, id } }
      : {
          action: "addStrategy" as const,
          feature: flag,
          payload: { ...fields, constraints: fields.constraints ?? [], parameters: fields.parameters ?? {} },
        };
    const request = await ok(adminApi.changeRequests.addChanges({ params: { projectId, environment }, body: [change] }));
    return { changeRequestId: request.id };
  }
  const params = { projectId, featureName: flag, environment };
  if (id) await ok(adminApi.features.updateStrategy({ params: { ...params, strategyId: id }, body: fields }));
  else await ok(adminApi.features.addStrategy({ params, body: fields }));
  return {};
}

export function StrategyEditor({
  target,
  strategy,
  onDone,
}: {
  target: StrategyTarget;
  /** The strategy being edited; a new gradual rollout when absent. */
  strategy?: FeatureStrategy;
  onDone: (result: { changeRequestId?: number }) => void;
}) {
  const queryClient = useQueryClient();
  const choices = useStrategyChoices();
  const titleId = useId();
  const [name, setName] = useState(strategy?.name ?? "flexibleRollout");
  const [title, setTitle] = useState(strategy?.title ?? "");
  const [disabled, setDisabled] = useState(strategy?.disabled ?? false);
  const [parameters, setParameters] = useState<Record<string, string>>(
    strategy?.parameters ?? { rollout: "100", stickiness: "default", groupId: target.flag },
  );
  const [constraints, setConstraints] = useState<Constraint[]>(strategy?.constraints ?? []);
  const [segments, setSegments] = useState<number[]>(strategy?.segments ?? []);
  const [variants, setVariants] = useState<EditableVariant[]>((strategy?.variants ?? []).map(toEditable));
  const save = useMutation({
    mutationFn: () =>
      saveStrategy(
        target,
        {
          name,
          title: title || null,
          disabled,
          parameters,
          constraints: cleanConstraints(constraints),
          segments,
          variants: toVariants(variants),
        },
        strategy?.id,
      ),
    onSuccess: async (result) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.flag(target.projectId, target.flag) }),
        queryClient.invalidateQueries({ queryKey: keys.changeRequests(target.projectId) }),
      ]);
      onDone(result);
    },
  });
  const definition = choices.data?.strategies.find((s) => s.name === name);
  const setParameter = (key: string, value: string) => setParameters({ ...parameters, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!weightProblem(variants)) save.mutate();
  };
  const rollout = Number(parameters.rollout ?? "100");

  return (
    <form className="card strategy-editor" onSubmit={submit} aria-labelledby={titleId}>
      <h3 id={titleId}>
        {strategy ? "Edit strategy" : "Add strategy"} in {target.environment}
      </h3>
      <ErrorNote error={choices.error} />
      <div className="row">
        <SelectField
          label="Strategy type"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setParameters(e.target.value === "flexibleRollout" ? { rollout: "100", stickiness: "default", groupId: target.flag } : {});
          }}
        >
          {(choices.data?.strategies ?? [{ name, displayName: name }]).map((s) => (
            <option key={s.name} value={s.name}>
              {s.displayName || s.name}
            </option>
          ))}
        </SelectField>
        <TextField label="Title (optional)" value={title} onChange={(e) => setTitle(e.target.value)} />
      </div>
      {name === "flexibleRollout" ? (
        <div className="row">
          <div className="field">
            <label htmlFor={`${titleId}-rollout`}>Rollout</label>
            <div className="slider">
              <input
                id={`${titleId}-rollout`}
                type="range"
                min={0}
                max={100}
                value={rollout}
                onChange={(e) => setParameter("rollout", e.target.value)}
                aria-valuetext={`${rollout}%`}
              />
              <output htmlFor={`${titleId}-rollout`}>{rollout}%</output>
            </div>
            {fieldError(save.error, "parameters.rollout") && (
              <div className="field-error">{fieldError(save.error, "parameters.rollout")}</div>
            )}
          </div>
          <SelectField
            label="Stickiness"
            value={parameters.stickiness ?? "default"}
            onChange={(e) => setParameter("stickiness", e.target.value)}
          >
            {(choices.data?.stickiness ?? ["default"]).map((s) => (
              <option key={s}>{s}</option>
            ))}
          </SelectField>
          <TextField
            label="Group id"
            value={parameters.groupId ?? ""}
            onChange={(e) => setParameter("groupId", e.target.value)}
            hint="Flags with the same group id roll out to the same users."
          />
        </div>
      ) : (
        definition &&
        definition.parameters.length > 0 && (
          <div className="row">
            {definition.parameters.map((p) => (
              <TextField
                key={p.name}
                label={p.name ?? ""}
                required={p.required}
                hint={p.description}
                value={parameters[p.name ?? ""] ?? ""}
                onChange={(e) => setParameter(p.name ?? "", e.target.value)}
                error={fieldError(save.error, `parameters.${p.name}`)}
              />
            ))}
          </div>
        )
      )}
      <ConstraintsEditor constraints={constraints} onChange={setConstraints} contextNames={choices.data?.contextNames ?? []} />
      {(choices.data?.segments.length ?? 0) > 0 && (
        <fieldset>
          <legend>Segments</legend>
          {choices.data!.segments.map((segment) => (
            <label className="check" key={segment.id}>
              <input
                type="checkbox"
                checked={segments.includes(segment.id)}
                onChange={(e) => setSegments(e.target.checked ? [...segments, segment.id] : segments.filter((id) => id !== segment.id))}
              />{" "}
              {segment.name}
            </label>
          ))}
        </fieldset>
      )}
      <VariantsEditor
        label="Strategy variants"
        variants={variants}
        onChange={setVariants}
        stickinessOptions={choices.data?.stickiness ?? ["default"]}
      />
      <label className="check">
        <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} /> Disabled (kept, but not evaluated)
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {target.protectedEnvironment ? "Add to change request" : "Save strategy"}
        </button>
        <button type="button" onClick={() => onDone({})}>
          Cancel
        </button>
      </div>
      <ErrorNote error={save.error} />
    </form>
  );
}
