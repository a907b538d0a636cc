import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FeatureEnvironment, FeatureStrategy, FeatureVariant } from "@vexil/contracts";
import { useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { arrayMove } from "@dnd-kit/sortable";
import { ErrorNote } from "../../components/forms.js";
import { SortableList } from "../../components/SortableList.js";
import { toEditable, toFeatureVariants, VariantsEditor, weightProblem, type EditableVariant } from "../../components/VariantsEditor.js";
import { useFlagSwitch } from "../../flag-switch.js";
import { useStrategyChoices } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { StrategyEditor, type StrategyTarget } from "./StrategyEditor.js";
import { changeRequestPath } from "../../paths.js";
import { FlagSwitch } from "../../components/FlagSwitch.js";

type StrategyChange =
  | { kind: "delete"; id: string }
  | { kind: "order"; order: { id: string; sortOrder: number }[] }
  | { kind: "variants"; variants: FeatureVariant[] };

/** Deletes, reorders or sets variants directly, or as a change request in a protected environment. */
async function applyChange(target: StrategyTarget, change: StrategyChange): Promise<{ changeRequestId?: number }> {
  const { projectId, flag, environment } = target;
  if (target.protectedEnvironment) {
    const body =
      change.kind === "delete"
        ? { action: "deleteStrategy" as const, feature: flag, payload: { id: change.id } }
        : change.kind === "order"
          ? { action: "reorderStrategy" as const, feature: flag, payload: change.order }
          : { action: "patchVariant" as const, feature: flag, payload: { variants: change.variants } };
    const request = await ok(adminApi.changeRequests.addChanges({ params: { projectId, environment }, body: [body] }));
    return { changeRequestId: request.id };
  }
  const params = { projectId, featureName: flag, environment };
  if (change.kind === "delete") await ok(adminApi.features.deleteStrategy({ params: { ...params, strategyId: change.id } }));
  else if (change.kind === "order") await ok(adminApi.features.setStrategySortOrder({ params, body: change.order }));
  else await ok(adminApi.features.setEnvironmentVariants({ params, body: change.variants }));
  return {};
}

function describeStrategy(strategy: FeatureStrategy): string {
  const parts: string[] = [];
  if (strategy.name === "flexibleRollout")
    parts.push(`${strategy.parameters?.rollout ?? "100"}% of ${strategy.parameters?.stickiness ?? "default"}`);
  for (const c of strategy.constraints ?? []) {
    const values = c.values?.length ? c.values.join(", ") : (c.value ?? "");
    parts.push(`${c.contextName} ${c.inverted ? "NOT " : ""}${c.operator} ${values}`);
  }
  if (strategy.segments?.length) parts.push(`${strategy.segments.length} segment(s)`);
  if (strategy.variants?.length) parts.push(`variants ${strategy.variants.map((v) => `${v.name} ${v.weight / 10}%`).join(", ")}`);
  return parts.join(" · ");
}

export function EnvironmentPanel({ target, environment }: { target: StrategyTarget; environment: FeatureEnvironment }) {
  const queryClient = useQueryClient();
  const choices = useStrategyChoices();
  const toggle = useFlagSwitch(target.projectId);
  const [editing, setEditing] = useState<FeatureStrategy | "new" | undefined>();
  const [changeRequestId, setChangeRequestId] = useState<number | undefined>();
  const [variants, setVariants] = useState<EditableVariant[]>((environment.variants ?? []).map(toEditable));
  const change = useMutation({
    mutationFn: (c: StrategyChange) => applyChange(target, c),
    onSuccess: async (result) => {
      setChangeRequestId(result.changeRequestId);
      await queryClient.invalidateQueries({ queryKey: keys.flag(target.projectId, target.flag) });
    },
  });
  // A dropped strategy stays where it was dropped while the new order is saved.
  const [dropped, setDropped] = useState<string[] | undefined>();
  const saved = [...(environment.strategies ?? [])].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
  const strategies = dropped ? dropped.map((id) => saved.find((s) => s.id === id)!).filter(Boolean) : saved;
  const reorder = (ids: string[]) => {
    setDropped(ids);
    change.mutate({ kind: "order", order: ids.map((id, i) => ({ id, sortOrder: i })) }, { onSettled: () => setDropped(undefined) });
  };
  const move = (index: number, by: -1 | 1) => reorder(arrayMove(strategies, index, index + by).map((s) => s.id!));
  const variantsChange = change.variables?.kind === "variants";
  const requested = changeRequestId ?? toggle.data?.changeRequestId;

  return (
    <section className="card environment" aria-labelledby={`env-${environment.name}`}>
      <div className="page-head">
        <h2 id={`env-${environment.name}`}>
          {environment.name}
          {target.protectedEnvironment && <span className="badge">change requests</span>}
        </h2>
        <label className="check">
          <FlagSwitch target={target} enabled={environment.enabled} saving={toggle.isPending} onSwitch={toggle.mutate} />
          <span aria-hidden="true">{environment.enabled ? "On" : "Off"}</span>
        </label>
      </div>
      {/* A refused variants list is shown beside its save button, below. */}
      <ErrorNote error={toggle.error ?? (variantsChange ? undefined : change.error)} />
      {requested !== undefined && (
        <p role="status" className="hint">
          Added to <Link href={changeRequestPath(target.projectId, requested)}>change request #{requested}</Link>.
        </p>
      )}
      {strategies.length === 0 && <p className="hint">No strategies: when on, the flag is on for everyone in {environment.name}.</p>}
      <SortableList
        className="strategies"
        items={strategies}
        idOf={(strategy) => strategy.id!}
        nameOf={(strategy) => `strategy ${strategies.indexOf(strategy) + 1} in ${environment.name}`}
        onReorder={reorder}
        disabled={change.isPending || editing !== undefined}
      >
        {(strategy, index, handle) =>
          editing !== undefined && editing !== "new" && editing.id === strategy.id ? (
            <StrategyEditor
              target={target}
              strategy={strategy}
              onDone={(r) => (setEditing(undefined), setChangeRequestId(r.changeRequestId))}
            />
          ) : (
            <div className="strategy">
              <button
                type="button"
                className="drag-handle"
                aria-label={`Drag strategy ${index + 1} in ${environment.name}`}
                {...handle.attributes}
                {...handle.listeners}
              >
                ⠿
              </button>
              <div className="grow">
                <strong>
                  {strategy.title || choices.data?.strategies.find((s) => s.name === strategy.name)?.displayName || strategy.name}
                </strong>
                {strategy.disabled && <span className="badge">disabled</span>}
                <div className="hint">{describeStrategy(strategy)}</div>
              </div>
              <div className="actions">
                <button type="button" onClick={() => setEditing(strategy)} aria-label={`Edit strategy ${index + 1} in ${environment.name}`}>
                  Edit
                </button>
                <button
                  type="button"
                  disabled={index === 0 || change.isPending}
                  onClick={() => move(index, -1)}
                  aria-label={`Move strategy ${index + 1} up`}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={index === strategies.length - 1 || change.isPending}
                  onClick={() => move(index, 1)}
                  aria-label={`Move strategy ${index + 1} down`}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Delete strategy ${index + 1} in ${environment.name}`}
                  onClick={() => confirm("Delete this strategy?") && change.mutate({ kind: "delete", id: strategy.id! })}
                >
                  Delete
                </button>
              </div>
            </div>
          )
        }
      </SortableList>
      {editing === "new" ? (
        <StrategyEditor target={target} onDone={(r) => (setEditing(undefined), setChangeRequestId(r.changeRequestId))} />
      ) : (
        <button type="button" onClick={() => setEditing("new")}>
          Add strategy in {environment.name}
        </button>
      )}
      <details className="environment-variants">
        <summary>
          Variants in {environment.name} ({environment.variants?.length ?? 0})
        </summary>
        <VariantsEditor
          label={`Variants in ${environment.name}`}
          variants={variants}
          onChange={setVariants}
          stickinessOptions={choices.data?.stickiness ?? ["default"]}
          overrideFields={choices.data?.contextNames ?? []}
        />
        <button
          type="button"
          className="primary"
          disabled={change.isPending || weightProblem(variants) !== undefined}
          onClick={() => change.mutate({ kind: "variants", variants: toFeatureVariants(variants) })}
        >
          Save variants in {environment.name}
        </button>
        {variantsChange && <ErrorNote error={change.error} />}
      </details>
    </section>
  );
}
