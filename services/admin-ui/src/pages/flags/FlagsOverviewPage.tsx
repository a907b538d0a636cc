import { useQuery } from "@tanstack/react-query";
import { Link, useSearch } from "wouter";
import { Pager } from "../../components/DataTable.js";
import { FlagSearchFields, useFlagSearch } from "../../components/FlagSearch.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { flagLastSeen, LastSeen } from "../../components/LastSeen.js";
import { flagPath, projectPath } from "../../paths.js";
import { projectsQuery } from "../../queries.js";
import { keys } from "../../query-keys.js";

/** Every project's flags in one list, searched, filtered and paged by the server's search. */
export function FlagsOverviewPage() {
  const linked = new URLSearchParams(useSearch());
  const search = useFlagSearch(keys.flagSearch, {}, { type: linked.get("type") ?? "", state: linked.get("state") ?? "" });
  const { flags } = search;
  const projects = useQuery(projectsQuery);
  const projectName = new Map(projects.data?.projects.map((p) => [p.id, p.name]));
  return (
    <section>
      <h1>All flags</h1>
      <div className="toolbar">
        <FlagSearchFields search={search}>
          <SelectField label="Project" value={search.filters.project} onChange={(e) => search.setFilter("project", e.target.value)}>
            <option value="">Every project</option>
            {projects.data?.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </SelectField>
        </FlagSearchFields>
      </div>
      <ErrorNote error={flags.error} />
      {flags.data?.total === 0 && <p className="empty">{search.narrowed ? "No flag matches." : "No flags yet."}</p>}
      {flags.data && flags.data.total > 0 && (
        <>
          <Pager {...search.pager} position="top" />
          <div className="table-scroll" role="region" aria-label="Flags of every project" tabIndex={0}>
            <table aria-label="Flags of every project" aria-busy={flags.isFetching || undefined}>
              <thead>
                <tr>
                  <th scope="col">Flag</th>
                  <th scope="col">Project</th>
                  <th scope="col" className="narrow-hidden">
                    Type
                  </th>
                  <th scope="col">On in</th>
                  <th scope="col" className="narrow-hidden">
                    Last seen
                  </th>
                </tr>
              </thead>
              <tbody>
                {flags.data.features.map((flag) => {
                  const projectId = flag.project ?? "default";
                  const on = (flag.environments ?? []).filter((env) => env.enabled).map((env) => env.name);
                  return (
                    <tr key={`${projectId}/${flag.name}`}>
                      <td>
                        <Link href={flagPath(projectId, flag.name)}>{flag.name}</Link>
                        {flag.stale && <span className="badge warn">stale</span>}
                        {flag.description && <div className="hint">{flag.description}</div>}
                      </td>
                      <td>
                        <Link href={projectPath(projectId)}>{projectName.get(projectId) ?? projectId}</Link>
                      </td>
                      <td className="narrow-hidden">{flag.type}</td>
                      <td>{on.join(", ") || "nowhere"}</td>
                      <td className="narrow-hidden">
                        <LastSeen at={flagLastSeen(flag)} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager {...search.pager} position="bottom" />
        </>
      )}
    </section>
  );
}
