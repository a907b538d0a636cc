import { featureTypeNames, type FeatureType } from "@vexil/contracts";
import { useState } from "react";
import { useLocation } from "wouter";
import { adminApi, ok } from "../../api.js";
import { fieldError, ResourceForm, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";
import type { LoadedProject } from "../../queries.js";
import { flagPath } from "../../paths.js";

/** Whether a name fits the project's naming pattern, matched whole as the server matches it. */
export function namingFeedback(pattern: string | null | undefined, name: string): string | undefined {
  if (!pattern || name === "") return undefined;
  try {
    return new RegExp(`^${pattern}$`).test(name) ? undefined : `Does not match the project's naming pattern ${pattern}`;
  } catch {
    return undefined;
  }
}

export function CreateFlag({ projectId, project, onClose }: { projectId: string; project: LoadedProject; onClose: () => void }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [type, setType] = useState<FeatureType>("release");
  const [description, setDescription] = useState("");
  const [impressionData, setImpressionData] = useState(false);
  const naming = project.overview.featureNaming;
  const create = useResourceMutation({
    mutate: () =>
      ok(adminApi.features.create({ params: { projectId }, body: { name, type, description: description || null, impressionData } })),
    invalidates: [keys.flags(projectId), keys.project(projectId), keys.flagSearch],
    done: (flag) => `Flag ${flag.name} created`,
    onSuccess: (flag) => navigate(flagPath(projectId, flag.name)),
  });
  const nameError = fieldError(create.error, "name") ?? namingFeedback(naming?.pattern, name);
  const limit = project.overview.featureLimit;
  const count = project.overview.featureTypeCounts.reduce((sum, { count }) => sum + count, 0);
  return (
    <ResourceForm
      title="New flag"
      submitLabel="Create flag"
      pending={create.isPending}
      error={create.error}
      fields={["name", "description"]}
      onSubmit={() => create.mutate()}
      extraActions={
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      }
    >
      <div className="row">
        <TextField
          label="Flag name"
          required
          autoFocus
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={nameError}
          hint={
            naming?.pattern
              ? [naming.description, naming.example && `Example: ${naming.example}`].filter(Boolean).join(" · ") ||
                `Pattern: ${naming.pattern}`
              : undefined
          }
        />
        <SelectField label="Flag type" value={type} onChange={(e) => setType(e.target.value as FeatureType)}>
          {featureTypeNames.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </SelectField>
      </div>
      <TextField
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError(create.error, "description")}
      />
      <label className="check">
        <input type="checkbox" checked={impressionData} onChange={(e) => setImpressionData(e.target.checked)} /> Emit impression data
      </label>
      {typeof limit === "number" && (
        <p className="hint">
          {count} of {limit} flags allowed in this project.
        </p>
      )}
    </ResourceForm>
  );
}
