import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Feature } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { Link, useLocation, useParams } from "wouter";
import { adminApi, ApiError, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { useProject } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { EnvironmentPanel } from "./EnvironmentPanel.js";
import { FlagDependencies, FlagHistory, FlagTags } from "./FlagDetails.js";
import { FlagLinks } from "./FlagLinks.js";
import { FlagUsage } from "./FlagUsage.js";
import { flagPath, projectPath } from "../../paths.js";

export function FlagPage() {
  const { projectId, flagName } = useParams<{ projectId: string; flagName: string }>();
  const project = useProject(projectId);
  const flag = useQuery({
    queryKey: keys.flag(projectId, flagName),
    queryFn: () => ok(adminApi.features.get({ params: { projectId, featureName: flagName } })),
  });
  return (
    <section>
      <div className="hint">
        <Link href="/projects">Projects</Link> / <Link href={projectPath(projectId)}>{project.data?.overview.name ?? projectId}</Link> /
      </div>
      {flag.error instanceof ApiError && flag.error.status === 404 ? (
        <div className="card" role="alert">
          <h1>Flag not found</h1>
          <p>
            There is no flag {flagName} in {projectId}: it may have been archived, deleted or renamed.
          </p>
          <p className="actions">
            <Link href={projectPath(projectId)}>The project's flags</Link>
            <Link href={`${projectPath(projectId)}/archive`}>The project's archive</Link>
            <Link href="/flags">Search every project</Link>
          </p>
        </div>
      ) : (
        <ErrorNote error={flag.error ?? project.error} />
      )}
      {(flag.isPending || project.isPending) && <div className="card skeleton skeleton-page" aria-hidden="true" />}
      {flag.data && project.data && (
        <>
          <FlagHeader projectId={projectId} flag={flag.data} />
          <FlagUsage flag={flag.data} environments={project.data.environments.map((env) => env.name)} />
          {project.data.environments.map((env) => {
            const environment = flag.data.environments?.find((e) => e.name === env.name) ?? {
              name: env.name,
              enabled: false,
              strategies: [],
              variants: [],
            };
            return (
              <EnvironmentPanel
                // A new answer from the server resets the panel's unsaved variant edits.
                key={`${env.name}:${JSON.stringify(environment.variants ?? [])}`}
                target={{
                  projectId,
                  flag: flagName,
                  environment: env.name,
                  protectedEnvironment: project.data.protectedEnvironments.has(env.name),
                }}
                environment={environment}
              />
            );
          })}
          <FlagLinks projectId={projectId} flag={flag.data} />
          <div className="columns">
            <FlagTags flagName={flagName} />
            <FlagDependencies projectId={projectId} flag={flag.data} />
          </div>
          <FlagHistory flagName={flagName} />
        </>
      )}
    </section>
  );
}

function FlagHeader({ projectId, flag }: { projectId: string; flag: Feature }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [cloning, setCloning] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.flag(projectId, flag.name) }),
      queryClient.invalidateQueries({ queryKey: keys.flags(projectId) }),
    ]);
  const params = { projectId, featureName: flag.name };
  const stale = useMutation({
    mutationFn: (on: boolean) =>
      ok(
        on
          ? adminApi.features.staleOn({ params: { featureName: flag.name } })
          : adminApi.features.staleOff({ params: { featureName: flag.name } }),
      ),
    onSuccess: refresh,
  });
  const impressions = useMutation({
    mutationFn: (on: boolean) => ok(adminApi.features.patch({ params, body: [{ op: "replace", path: "/impressionData", value: on }] })),
    onSuccess: refresh,
  });
  const [outcome, setOutcome] = useState<"kept" | "discarded">("kept");
  const completed = flag.lifecycle?.stage === "completed";
  const lifecycle = useMutation({
    mutationFn: () =>
      ok(
        completed
          ? adminApi.dependenciesAndLifecycle.uncompleteLifecycle({ params })
          : adminApi.dependenciesAndLifecycle.completeLifecycle({ params, body: { status: outcome } }),
      ),
    onSuccess: refresh,
  });
  const archive = useMutation({
    mutationFn: () => ok(adminApi.features.archive({ params })),
    onSuccess: async () => {
      await refresh();
      navigate(`${projectPath(projectId)}/archive`);
    },
  });
  return (
    <div className="card">
      <div className="page-head">
        <div>
          <h1>
            {flag.name}
            {flag.stale && <span className="badge warn">stale</span>}
          </h1>
          <div className="hint">
            {flag.type} · lifecycle {flag.lifecycle?.stage ?? "—"}
            {flag.createdAt && ` · created ${new Date(flag.createdAt).toLocaleString()}`}
          </div>
          {flag.description && <p>{flag.description}</p>}
        </div>
        <div className="actions">
          <button type="button" onClick={() => stale.mutate(!flag.stale)} disabled={stale.isPending}>
            {flag.stale ? "Mark active" : "Mark stale"}
          </button>
          <button type="button" onClick={() => setCloning(!cloning)} aria-expanded={cloning}>
            Clone
          </button>
          <button
            type="button"
            className="danger"
            disabled={archive.isPending}
            onClick={() => confirm(`Archive ${flag.name}? It can be revived from the archive.`) && archive.mutate()}
          >
            Archive
          </button>
        </div>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={flag.impressionData ?? false}
          disabled={impressions.isPending}
          onChange={(e) => impressions.mutate(e.target.checked)}
        />{" "}
        Emit impression data
      </label>
      {/* Completing says the flag's work is done, so it shows as ready to clean up. */}
      <div className="row">
        {!completed && (
          <SelectField label="Code after completion" value={outcome} onChange={(e) => setOutcome(e.target.value as "kept" | "discarded")}>
            <option value="kept">kept</option>
            <option value="discarded">discarded</option>
          </SelectField>
        )}
        <button type="button" className="align-end" onClick={() => lifecycle.mutate()} disabled={lifecycle.isPending}>
          {completed ? "Reopen (not completed)" : "Mark completed"}
        </button>
      </div>
      <ErrorNote error={stale.error ?? impressions.error ?? lifecycle.error ?? archive.error} />
      {cloning && <CloneFlag projectId={projectId} flagName={flag.name} />}
    </div>
  );
}

function CloneFlag({ projectId, flagName }: { projectId: string; flagName: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState(`${flagName}-copy`);
  const clone = useMutation({
    mutationFn: () => ok(adminApi.features.clone({ params: { projectId, featureName: flagName }, body: { name, replaceGroupId: true } })),
    onSuccess: async (copy) => {
      await queryClient.invalidateQueries({ queryKey: keys.flags(projectId) });
      navigate(flagPath(projectId, copy.name));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    clone.mutate();
  };
  return (
    <form onSubmit={submit} className="row">
      <TextField
        label="Name of the copy"
        required
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(clone.error, "name")}
      />
      <button type="submit" className="primary align-end" disabled={clone.isPending}>
        Clone with strategies
      </button>
      {!fieldError(clone.error, "name") && <ErrorNote error={clone.error} />}
    </form>
  );
}
