import type { Constraint, PlaygroundConstraint, PlaygroundFeature, PlaygroundResponse, PlaygroundStrategy } from "@vexil/contracts";
import { useDeferredValue, useState } from "react";
import { Link } from "wouter";
import { DataTable, type Column } from "../../components/DataTable.js";
import { SelectField, TextField } from "../../components/forms.js";
import { operatorLabels } from "../flag/ConstraintsEditor.js";
import { flagPath } from "../../paths.js";

function describeConstraint(constraint: Constraint): string {
  const values = constraint.values?.length ? constraint.values.join(", ") : (constraint.value ?? "");
  const operator = `${constraint.inverted ? "not " : ""}${operatorLabels[constraint.operator] ?? constraint.operator}`;
  return `${constraint.contextName} ${operator} ${values}`;
}

function Outcome({ result }: { result: boolean | "unknown" }) {
  if (result === "unknown") return <span className="badge">unknown</span>;
  return <span className={result ? "badge on" : "badge off"}>{result ? "true" : "false"}</span>;
}

function Constraints({ constraints }: { constraints: PlaygroundConstraint[] }) {
  return (
    <ul className="plain-list">
      {constraints.map((constraint, i) => (
        <li key={i}>
          <Outcome result={constraint.result} /> {describeConstraint(constraint)}
        </li>
      ))}
    </ul>
  );
}

function strategyVerdict(strategy: PlaygroundStrategy): string {
  if (strategy.result.evaluationStatus === "unevaluated") return "disabled, not evaluated";
  if (strategy.result.evaluationStatus === "incomplete") {
    return strategy.name === "applicationHostname"
      ? "depends on the SDK's host name: give a hostname property to decide it"
      : "custom strategy, cannot be evaluated here";
  }
  return strategy.result.enabled ? "matches" : "does not match";
}

function Reason({ feature }: { feature: PlaygroundFeature }) {
  const notes: string[] = [];
  if (!feature.isEnabledInCurrentEnvironment) notes.push("The flag is off in this environment.");
  if (feature.hasUnsatisfiedDependency) notes.push("A parent flag's condition is not met.");
  if (feature.strategies.data.length === 0) notes.push("No strategies: on for everyone when the flag is on.");
  return (
    <details>
      <summary>Why {feature.name}</summary>
      {notes.map((note) => (
        <p key={note}>{note}</p>
      ))}
      <ol className="strategies">
        {feature.strategies.data.map((strategy) => (
          <li key={strategy.id} className="card">
            <strong>{strategy.title || strategy.name}</strong> <Outcome result={strategy.result.enabled} /> {strategyVerdict(strategy)}
            {Object.keys(strategy.parameters).length > 0 && (
              <div className="hint">
                {Object.entries(strategy.parameters)
                  .map(([name, value]) => `${name}: ${value}`)
                  .join(", ")}
              </div>
            )}
            {strategy.constraints.length > 0 && <Constraints constraints={strategy.constraints} />}
            {strategy.segments.map((segment) => (
              <div key={segment.id}>
                Segment {segment.name} <Outcome result={segment.result} />
                <Constraints constraints={segment.constraints} />
              </div>
            ))}
          </li>
        ))}
      </ol>
    </details>
  );
}

const columns: Column<PlaygroundFeature>[] = [
  {
    header: "Flag",
    cell: (feature) => <Link href={flagPath(feature.projectId, feature.name)}>{feature.name}</Link>,
    sortBy: (feature) => feature.name,
  },
  { header: "Project", cell: (feature) => feature.projectId, sortBy: (feature) => feature.projectId },
  {
    header: "Result",
    cell: (feature) => <span className={feature.isEnabled ? "badge on" : "badge off"}>{feature.isEnabled ? "On" : "Off"}</span>,
    sortBy: (feature) => (feature.isEnabled ? 1 : 0),
  },
  {
    header: "Variant",
    cell: (feature) => (
      <>
        {feature.variant.name}
        {feature.variant.payload && <div className="hint">{feature.variant.payload.value}</div>}
      </>
    ),
    sortBy: (feature) => feature.variant.name,
  },
  { header: "Reason", cell: (feature) => <Reason feature={feature} /> },
];

/**
 * One row per flag: the SDKs' answer, the variant, and the reason on demand. A run over every project
 * answers thousands of flags, so they are searched and shown a page at a time.
 */
export function PlaygroundResults({ result }: { result: PlaygroundResponse }) {
  const [text, setText] = useState("");
  const [outcome, setOutcome] = useState("");
  const query = useDeferredValue(text.trim().toLowerCase());
  if (result.features.length === 0) return <p className="empty">No flags in the chosen projects and environment.</p>;
  const shown = result.features.filter(
    (feature) =>
      (!query || feature.name.toLowerCase().includes(query) || feature.projectId.toLowerCase().includes(query)) &&
      (!outcome || String(feature.isEnabled) === outcome),
  );
  const on = result.features.filter((feature) => feature.isEnabled).length;
  return (
    <section aria-labelledby="playground-results-title">
      <h2 id="playground-results-title">Results</h2>
      <p>
        {on} of {result.features.length} flags on for this context.
      </p>
      <div className="toolbar">
        <TextField
          label="Search results"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Flag or project"
        />
        <SelectField label="Result" value={outcome} onChange={(e) => setOutcome(e.target.value)}>
          <option value="">On or off</option>
          <option value="true">On</option>
          <option value="false">Off</option>
        </SelectField>
      </div>
      <DataTable
        label="Playground results"
        columns={columns}
        rows={shown}
        rowKey={(feature) => `${feature.projectId}/${feature.name}`}
        noun="flags"
        empty="No flag matches."
      />
    </section>
  );
}
