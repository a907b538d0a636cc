import { useQuery } from "@tanstack/react-query";
import type { Feature } from "@vexil/contracts";
import { useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { Pager } from "../../components/DataTable.js";
import { FlagSearchFields, useFlagSearch } from "../../components/FlagSearch.js";
import { FlagSwitch } from "../../components/FlagSwitch.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { flagLastSeen, LastSeen } from "../../components/LastSeen.js";
import { useFlagSwitch } from "../../flag-switch.js";
import { changeRequestPath, flagPath } from "../../paths.js";
import type { LoadedProject } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";
import { BulkActions } from "./BulkActions.js";
import { CreateFlag } from "./CreateFlag.js";

/** The project's flags, searched, filtered and paged by the server so thousands stay quick. */
export function FlagsPanel({ projectId, project }: { projectId: string; project: LoadedProject }) {
  const search = useFlagSearch(keys.flags(projectId), { project: projectId });
  const { flags } = search;
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const select = (flag: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(flag);
      else next.delete(flag);
      return next;
    });
  const tags = useQuery({ queryKey: keys.tags, queryFn: () => ok(adminApi.tags.list()), staleTime: 30_000 });
  const environments = project.environments;

  return (
    <>
      <div className="toolbar">
        <FlagSearchFields search={search}>
          <SelectField label="Tag" value={search.filters.tag} onChange={(e) => search.setFilter("tag", e.target.value)}>
            <option value="">Any tag</option>
            {tags.data?.tags.map((t) => (
              <option key={`${t.type}:${t.value}`} value={`${t.type}:${t.value}`}>
                {t.type}: {t.value}
              </option>
            ))}
          </SelectField>
        </FlagSearchFields>
        <button type="button" className="primary" onClick={() => setCreating(true)} disabled={creating}>
          New flag
        </button>
      </div>
      {creating && <CreateFlag projectId={projectId} project={project} onClose={() => setCreating(false)} />}
      {selected.size > 0 && (
        <BulkActions projectId={projectId} project={project} selected={[...selected]} onDone={() => setSelected(new Set())} />
      )}
      <ErrorNote error={flags.error} />
      {flags.data && flags.data.total === 0 && (
        <p className="empty">{search.narrowed ? "No flag matches these filters." : "No flags yet: create the first one with New flag."}</p>
      )}
      {flags.data && flags.data.total > 0 && (
        <>
          <Pager {...search.pager} position="top" />
          <div className="table-scroll" role="region" aria-label="Flags" tabIndex={0}>
            <table aria-label="Flags" aria-busy={flags.isFetching}>
              <thead>
                <tr>
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every flag on this page"
                      checked={flags.data.features.length > 0 && flags.data.features.every((f) => selected.has(f.name))}
                      onChange={(e) => {
                        for (const f of flags.data!.features) select(f.name, e.target.checked);
                      }}
                    />
                  </th>
                  <th scope="col">Flag</th>
                  <th scope="col" className="narrow-hidden">
                    Type
                  </th>
                  <th scope="col" className="narrow-hidden">
                    Lifecycle
                  </th>
                  <th scope="col" className="narrow-hidden">
                    Last seen
                  </th>
                  {environments.map((env) => (
                    <th scope="col" key={env.name}>
                      {env.name}
                      {project.protectedEnvironments.has(env.name) && <span className="badge">change requests</span>}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {flags.data.features.map((flag) => (
                  <FlagRow
                    key={flag.name}
                    projectId={projectId}
                    project={project}
                    flag={flag}
                    selected={selected.has(flag.name)}
                    onSelect={(on) => select(flag.name, on)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <Pager {...search.pager} position="bottom" />
        </>
      )}
    </>
  );
}

interface FlagRowProps {
  projectId: string;
  project: LoadedProject;
  flag: Feature;
  selected: boolean;
  onSelect: (selected: boolean) => void;
}

function FlagRow({ projectId, project, flag, selected, onSelect }: FlagRowProps) {
  const toggle = useFlagSwitch(projectId);
  const favourite = useResourceMutation({
    mutate: (on: boolean) =>
      ok(
        on
          ? adminApi.features.addFavorite({ params: { projectId, featureName: flag.name } })
          : adminApi.features.removeFavorite({ params: { projectId, featureName: flag.name } }),
      ),
    invalidates: [keys.flags(projectId), keys.flagSearch],
  });
  const failedHere = toggle.error && toggle.variables?.flag === flag.name;
  const requested = toggle.data?.changeRequestId;
  return (
    <tr>
      <td>
        <input type="checkbox" aria-label={`Select ${flag.name}`} checked={selected} onChange={(e) => onSelect(e.target.checked)} />
      </td>
      <td>
        <button
          type="button"
          className="favourite"
          aria-pressed={flag.favorite ?? false}
          aria-label={`Favourite ${flag.name}`}
          disabled={favourite.isPending}
          onClick={() => favourite.mutate(!flag.favorite)}
        >
          {flag.favorite ? "★" : "☆"}
        </button>{" "}
        <Link href={flagPath(projectId, flag.name)}>{flag.name}</Link>
        {flag.stale && <span className="badge warn">stale</span>}
        {flag.description && <div className="hint">{flag.description}</div>}
        {failedHere && <ErrorNote error={toggle.error} />}
        {requested !== undefined && (
          <p className="hint" role="status">
            Added to <Link href={changeRequestPath(projectId, requested)}>change request #{requested}</Link>.
          </p>
        )}
      </td>
      <td className="narrow-hidden">{flag.type}</td>
      <td className="narrow-hidden">{flag.lifecycle?.stage ?? "—"}</td>
      <td className="narrow-hidden">
        <LastSeen at={flagLastSeen(flag)} />
      </td>
      {project.environments.map((env) => {
        const enabled = flag.environments?.find((e) => e.name === env.name)?.enabled ?? false;
        const protectedEnvironment = project.protectedEnvironments.has(env.name);
        return (
          <td key={env.name}>
            <FlagSwitch
              target={{ projectId, flag: flag.name, environment: env.name, protectedEnvironment }}
              enabled={enabled}
              saving={toggle.isPending}
              onSwitch={toggle.mutate}
            />
          </td>
        );
      })}
    </tr>
  );
}
