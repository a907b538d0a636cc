import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { useAllEnvironments } from "../../queries.js";
import { keys } from "../../query-keys.js";
import type { LoadedProject } from "../../queries.js";
import { ProjectMembers } from "./ProjectMembers.js";

type Mode = "open" | "protected" | "private";

export function ProjectSettings({ projectId, project }: { projectId: string; project: LoadedProject }) {
  return (
    <>
      <GeneralSettings projectId={projectId} project={project} />
      <EnvironmentSettings projectId={projectId} project={project} />
      <ProjectMembers projectId={projectId} />
    </>
  );
}

function GeneralSettings({ projectId, project }: { projectId: string; project: LoadedProject }) {
  const queryClient = useQueryClient();
  const { overview } = project;
  const [name, setName] = useState(overview.name);
  const [description, setDescription] = useState(overview.description ?? "");
  const [mode, setMode] = useState<Mode>(overview.mode ?? "open");
  const [featureLimit, setFeatureLimit] = useState(overview.featureLimit?.toString() ?? "");
  const [pattern, setPattern] = useState(overview.featureNaming?.pattern ?? "");
  const [example, setExample] = useState(overview.featureNaming?.example ?? "");
  const [patternDescription, setPatternDescription] = useState(overview.featureNaming?.description ?? "");
  const save = useMutation({
    mutationFn: () =>
      ok(
        adminApi.projects.update({
          params: { projectId },
          body: {
            name,
            description: description || null,
            mode,
            featureLimit: featureLimit === "" ? null : Number(featureLimit),
            featureNaming: pattern ? { pattern, example: example || null, description: patternDescription || null } : { pattern: null },
          },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.project(projectId) }),
        queryClient.invalidateQueries({ queryKey: keys.projects }),
      ]),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const fields = ["name", "description", "mode", "featureLimit", "featureNaming"];
  return (
    <form onSubmit={submit} className="card" aria-labelledby="project-settings-title">
      <h2 id="project-settings-title">Project settings</h2>
      <div className="row">
        <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={fieldError(save.error, "name")} />
        <SelectField
          label="Collaboration mode"
          value={mode}
          onChange={(e) => setMode(e.target.value as Mode)}
          error={fieldError(save.error, "mode")}
        >
          <option value="open">open</option>
          <option value="protected">protected</option>
          <option value="private">private</option>
        </SelectField>
        <TextField
          label="Flag limit"
          type="number"
          min={0}
          value={featureLimit}
          onChange={(e) => setFeatureLimit(e.target.value)}
          hint="Empty: no limit."
          error={fieldError(save.error, "featureLimit")}
        />
      </div>
      <TextField
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError(save.error, "description")}
      />
      <div className="row">
        <TextField
          label="Naming pattern"
          value={pattern}
          onChange={(e) => setPattern(e.target.value)}
          hint="A regular expression every new flag name must match whole, e.g. [a-z]+-[a-z0-9-]+"
          error={fieldError(save.error, "featureNaming.pattern")}
        />
        <TextField
          label="Naming example"
          value={example}
          onChange={(e) => setExample(e.target.value)}
          error={fieldError(save.error, "featureNaming.example")}
        />
        <TextField label="Naming description" value={patternDescription} onChange={(e) => setPatternDescription(e.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save settings
        </button>
        {save.isSuccess && <span role="status">Saved.</span>}
      </div>
      {save.error && !fields.some((f) => fieldError(save.error, f)) && <ErrorNote error={save.error} />}
    </form>
  );
}

/** Which environments the project uses, and which of them need an approved change request. */
function EnvironmentSettings({ projectId, project }: { projectId: string; project: LoadedProject }) {
  const queryClient = useQueryClient();
  const all = useAllEnvironments();
  const used = new Set(project.environments.map((e) => e.name));
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.project(projectId) });
  const toggleEnvironment = useMutation({
    mutationFn: ({ environment, use }: { environment: string; use: boolean }) =>
      use
        ? ok(adminApi.projects.addEnvironment({ params: { projectId }, body: { environment } }))
        : ok(adminApi.projects.removeEnvironment({ params: { projectId, environment } })),
    onSuccess: refresh,
  });
  const setChangeRequests = useMutation({
    mutationFn: ({ environment, enabled, requiredApprovals }: { environment: string; enabled: boolean; requiredApprovals: number }) =>
      ok(
        adminApi.changeRequests.putConfig({
          params: { projectId, environment },
          body: { changeRequestsEnabled: enabled, requiredApprovals },
        }),
      ),
    onSuccess: refresh,
  });
  return (
    <div className="card">
      <h2>Environments</h2>
      <ErrorNote error={all.error ?? toggleEnvironment.error ?? setChangeRequests.error} />
      <table aria-label="Project environments">
        <thead>
          <tr>
            <th scope="col">Environment</th>
            <th scope="col">Used by this project</th>
            <th scope="col">Change requests</th>
            <th scope="col">Approvals needed</th>
          </tr>
        </thead>
        <tbody>
          {(all.data?.environments ?? []).map((env) => {
            const config = project.changeRequestConfig.find((c) => c.environment === env.name);
            const protectedEnvironment = config?.changeRequestEnabled ?? false;
            const approvals = config?.requiredApprovals ?? 1;
            return (
              <tr key={env.name}>
                <td>
                  {env.name} <span className="hint">({env.type})</span>
                </td>
                <td>
                  <input
                    type="checkbox"
                    role="switch"
                    className="switch"
                    aria-label={`Use ${env.name}`}
                    checked={used.has(env.name)}
                    disabled={toggleEnvironment.isPending}
                    onChange={(e) => {
                      if (e.target.checked || confirm(`Stop using ${env.name} in this project? Its strategies there are removed.`)) {
                        toggleEnvironment.mutate({ environment: env.name, use: e.target.checked });
                      }
                    }}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    role="switch"
                    className="switch"
                    aria-label={`Require change requests in ${env.name}`}
                    checked={protectedEnvironment}
                    disabled={!used.has(env.name) || setChangeRequests.isPending}
                    onChange={(e) =>
                      setChangeRequests.mutate({ environment: env.name, enabled: e.target.checked, requiredApprovals: approvals })
                    }
                  />
                </td>
                <td>
                  <input
                    type="number"
                    min={1}
                    max={10}
                    aria-label={`Approvals needed in ${env.name}`}
                    value={approvals}
                    disabled={!protectedEnvironment || setChangeRequests.isPending}
                    onChange={(e) =>
                      setChangeRequests.mutate({ environment: env.name, enabled: true, requiredApprovals: Number(e.target.value) })
                    }
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
