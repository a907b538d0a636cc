import type { Constraint, PlaygroundConstraint, PlaygroundFeature, PlaygroundResponse, PlaygroundStrategy } from "@vexil/contracts";
import { Link } from "wouter";
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

/** One row per flag: the SDKs' answer, the variant, and the reason on demand. */
export function PlaygroundResults({ result }: { result: PlaygroundResponse }) {
  if (result.features.length === 0) return <p className="empty">No flags in the chosen projects and environment.</p>;
  return (
    <table aria-label="Playground results">
      <thead>
        <tr>
          <th scope="col">Flag</th>
          <th scope="col">Project</th>
          <th scope="col">Result</th>
          <th scope="col">Variant</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {result.features.map((feature) => (
          <tr key={feature.name}>
            <td>
              <Link href={flagPath(feature.projectId, feature.name)}>{feature.name}</Link>
            </td>
            <td>{feature.projectId}</td>
            <td>
              <span className={feature.isEnabled ? "badge on" : "badge off"}>{feature.isEnabled ? "On" : "Off"}</span>
            </td>
            <td>
              {feature.variant.name}
              {feature.variant.payload && <div className="hint">{feature.variant.payload.value}</div>}
            </td>
            <td>
              <Reason feature={feature} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
