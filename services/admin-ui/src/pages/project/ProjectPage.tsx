import { Link, Route, Switch, useParams } from "wouter";
import { ErrorNote } from "../../components/forms.js";
import { useProject } from "../../queries.js";
import { ChangeRequestsPanel } from "../change-requests/ChangeRequestsPanel.js";
import { ActionSetsPanel } from "./ActionSetsPanel.js";
import { ArchivePanel } from "./ArchivePanel.js";
import { FlagsPanel } from "./FlagsPanel.js";
import { ProjectSettings } from "./ProjectSettings.js";
import { projectPath } from "../../paths.js";

const tabs = [
  { path: "", label: "Flags" },
  { path: "/change-requests", label: "Change requests" },
  { path: "/archive", label: "Archive" },
  { path: "/actions", label: "Actions" },
  { path: "/settings", label: "Settings" },
];

export function ProjectPage() {
  const { projectId, tab } = useParams<{ projectId: string; tab?: string }>();
  const project = useProject(projectId);
  const base = projectPath(projectId);
  return (
    <section>
      <div className="page-head">
        <div>
          <div className="hint">
            <Link href="/projects">Projects</Link> /
          </div>
          <h1>{project.data?.overview.name ?? projectId}</h1>
        </div>
        {project.data && (
          <div className="hint">
            Health {project.data.overview.health ?? "—"}% · mode {project.data.overview.mode}
          </div>
        )}
      </div>
      <nav className="tabs" aria-label="Project">
        {tabs.map((t) => (
          <Link key={t.label} href={`${base}${t.path}`} aria-current={(tab ? `/${tab}` : "") === t.path ? "page" : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      <ErrorNote error={project.error} />
      {project.data && (
        <Switch>
          <Route path="/projects/:projectId/archive">
            <ArchivePanel projectId={projectId} />
          </Route>
          <Route path="/projects/:projectId/actions">
            <ActionSetsPanel projectId={projectId} project={project.data} />
          </Route>
          <Route path="/projects/:projectId/change-requests">
            <ChangeRequestsPanel projectId={projectId} />
          </Route>
          <Route path="/projects/:projectId/settings">
            <ProjectSettings projectId={projectId} project={project.data} />
          </Route>
          <Route>
            <FlagsPanel projectId={projectId} project={project.data} />
          </Route>
        </Switch>
      )}
    </section>
  );
}
