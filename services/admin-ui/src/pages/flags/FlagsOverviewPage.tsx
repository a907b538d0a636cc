import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { featureTypeNames } from "@vexil/contracts";
import { useDeferredValue, useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { Pager } from "../../components/DataTable.js";
import { ErrorNote, SelectField, TextField } from "../../components/forms.js";
import { flagLastSeen, LastSeen } from "../../components/LastSeen.js";
import { flagPath, projectPath } from "../../paths.js";
import { projectsQuery } from "../../queries.js";
import { keys } from "../../query-keys.js";

/** Every project's flags in one list, searched, filtered and paged by the server's search. */
export function FlagsOverviewPage() {
  const [text, setText] = useState("");
  const query = useDeferredValue(text.trim());
  const [project, setProject] = useState("");
  const [type, setType] = useState("");
  const [state, setState] = useState("");
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(50);
  const projects = useQuery(projectsQuery);
  const filters = {
    query: query || undefined,
    project: project ? `IS:${project}` : undefined,
    type: type || undefined,
    state: state || undefined,
  };
  const flags = useQuery({
    queryKey: [...keys.flagSearch, filters, page, pageSize],
    queryFn: () => ok(adminApi.features.search({ query: { ...filters, offset: page * pageSize, limit: pageSize } })),
    placeholderData: keepPreviousData,
  });
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPage(0);
  };
  const projectName = new Map(projects.data?.projects.map((p) => [p.id, p.name]));
  const pager = (position: "top" | "bottom") => (
    <Pager
      page={page}
      pageSize={pageSize}
      total={flags.data?.total ?? 0}
      noun="flags"
      onPage={setPage}
      onPageSize={(size) => {
        setPageSize(size);
        setPage(0);
      }}
      position={position}
    />
  );
  return (
    <section>
      <h1>All flags</h1>
      <div className="toolbar">
        <TextField
          label="Search"
          type="search"
          value={text}
          onChange={(e) => filter(setText)(e.target.value)}
          placeholder="Name or description"
        />
        <SelectField label="Project" value={project} onChange={(e) => filter(setProject)(e.target.value)}>
          <option value="">Every project</option>
          {projects.data?.projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Type" value={type} onChange={(e) => filter(setType)(e.target.value)}>
          <option value="">Any type</option>
          {featureTypeNames.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </SelectField>
        <SelectField label="State" value={state} onChange={(e) => filter(setState)(e.target.value)}>
          <option value="">Any state</option>
          <option value="active">active</option>
          <option value="stale">stale</option>
        </SelectField>
      </div>
      <ErrorNote error={flags.error} />
      {flags.data?.total === 0 && <p className="empty">{query || project || type || state ? "No flag matches." : "No flags yet."}</p>}
      {flags.data && flags.data.total > 0 && (
        <>
          {pager("top")}
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
          {pager("bottom")}
        </>
      )}
    </section>
  );
}
