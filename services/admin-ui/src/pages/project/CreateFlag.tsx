import { useMutation, useQueryClient } from "@tanstack/react-query";
import { featureTypeNames, type FeatureType } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../queries.js";
import type { LoadedProject } from "./FlagsPanel.js";
import { flagPath } from "../../paths.js";

/** Whether a name fits the project's naming pattern, matched whole as the server matches it. */
function namingFeedback(pattern: string | null | undefined, name: string): string | undefined {
  if (!pattern || name === "") return undefined;
  try {
    return new RegExp(`^${pattern}$`).test(name) ? undefined : `Does not match the project's naming pattern ${pattern}`;
  } catch {
    return undefined;
  }
}

export function CreateFlag({ projectId, project, onClose }: { projectId: string; project: LoadedProject; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [type, setType] = useState<FeatureType>("release");
  const [description, setDescription] = useState("");
  const [impressionData, setImpressionData] = useState(false);
  const naming = project.overview.featureNaming;
  const create = useMutation({
    mutationFn: () =>
      ok(adminApi.features.create({ params: { projectId }, body: { name, type, description: description || null, impressionData } })),
    onSuccess: async (flag) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.flags(projectId) }),
        queryClient.invalidateQueries({ queryKey: keys.project(projectId) }),
      ]);
      navigate(flagPath(projectId, flag.name));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const nameError = fieldError(create.error, "name") ?? namingFeedback(naming?.pattern, name);
  const limit = project.overview.featureLimit;
  const count = project.overview.featureTypeCounts.reduce((sum, { count }) => sum + count, 0);
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-flag-title">
      <h2 id="create-flag-title">New flag</h2>
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
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create flag
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      {create.error && !fieldError(create.error, "name") && !fieldError(create.error, "description") && <ErrorNote error={create.error} />}
    </form>
  );
}
