import { useQuery } from "@tanstack/react-query";
import { changeRequestActionTable, type ChangeRequestFeature } from "@vexil/contracts";
import { adminApi, ok } from "../../api.js";
import { keys } from "../../query-keys.js";

type Change = ChangeRequestFeature["changes"][number];

/** What the flag holds now for the part a change touches, so the change reads as a diff. */
function currentPart(
  change: Change,
  environment: { enabled: boolean; strategies?: { id?: string }[]; variants?: unknown[] } | undefined,
): unknown {
  if (!environment) return undefined;
  const payload = change.payload as { id?: string };
  switch (change.action) {
    case "updateEnabled":
      return { enabled: environment.enabled };
    case "updateStrategy":
    case "deleteStrategy":
      return environment.strategies?.find((s) => s.id === payload.id);
    case "reorderStrategy":
      return environment.strategies?.map((s) => s.id);
    case "patchVariant":
      return { variants: environment.variants };
    default:
      return undefined;
  }
}

const show = (value: unknown) => JSON.stringify(value, null, 2);

/** The actions' labels by name: a response names its action as a plain string. */
const actionLabels: Partial<Record<string, string>> = Object.fromEntries(
  Object.entries(changeRequestActionTable).map(([action, description]) => [action, description.label]),
);

/** The change in words, for its heading; an action this UI does not know yet shows by name. */
function heading(change: Change): string {
  if (change.action === "updateEnabled") return (change.payload as { enabled?: boolean }).enabled ? "Turn on" : "Turn off";
  return actionLabels[change.action] ?? change.action;
}

export function ChangeDiff({
  projectId,
  feature,
  environment,
  change,
  live,
}: {
  projectId: string;
  feature: string;
  environment: string;
  change: Change;
  /** Compare with the flag as it is now (not once the request was applied). */
  live: boolean;
}) {
  const flag = useQuery({
    queryKey: keys.flag(projectId, feature),
    queryFn: () => ok(adminApi.features.get({ params: { projectId, featureName: feature } })),
    enabled: live,
  });
  const before = live
    ? currentPart(
        change,
        flag.data?.environments?.find((e) => e.name === environment),
      )
    : undefined;
  return (
    <div className="change">
      <h3>{heading(change)}</h3>
      <div className="diff">
        {before !== undefined && (
          <div>
            <div className="hint">Now</div>
            <pre className="removed">{show(before)}</pre>
          </div>
        )}
        <div>
          <div className="hint">{change.action === "deleteStrategy" ? "Deleted" : "Proposed"}</div>
          <pre className="added">{change.action === "deleteStrategy" ? "(removed)" : show(change.payload)}</pre>
        </div>
      </div>
    </div>
  );
}
