import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import type { ProjectListItem as Project } from "@vexil/contracts";
import { adminApi, ok } from "../api.js";
import { DataTable, type Column } from "../components/DataTable.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../components/forms.js";
import { projectsQuery } from "../queries.js";
import { keys } from "../query-keys.js";
import { projectPath } from "../paths.js";

const columns: Column<Project>[] = [
  {
    header: "Project",
    cell: (project) => (
      <>
        <Link href={projectPath(project.id)}>{project.name}</Link>
        {project.description && <div className="hint">{project.description}</div>}
      </>
    ),
    sortBy: (project) => project.name,
  },
  { header: "Id", cell: (project) => <code>{project.id}</code>, sortBy: (project) => project.id, narrowHidden: true },
  { header: "Mode", cell: (project) => project.mode, sortBy: (project) => project.mode ?? "", narrowHidden: true },
  { header: "Flags", cell: (project) => project.featureCount, sortBy: (project) => project.featureCount ?? 0, numeric: true },
  { header: "Health", cell: (project) => `${project.health}%`, sortBy: (project) => project.health ?? 0, numeric: true },
];

export function ProjectsPage() {
  const projects = useQuery(projectsQuery);
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <div className="page-head">
        <h1>Projects</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)} disabled={creating}>
          New project
        </button>
      </div>
      {creating && <CreateProject onClose={() => setCreating(false)} />}
      <ErrorNote error={projects.error} />
      {!projects.error && (
        <DataTable
          label="Projects"
          noun="projects"
          columns={columns}
          rows={projects.data?.projects}
          rowKey={(project) => project.id}
          empty="No projects yet: create one to hold your flags."
          columnChoice={false}
        />
      )}
    </section>
  );
}

/** A URL-friendly id made from a project name: "Web Shop (EU)" becomes "web-shop-eu". */
export function projectIdFrom(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);
}

function CreateProject({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  // The id follows the name until it is edited by hand.
  const [typedId, setTypedId] = useState<string>();
  const [name, setName] = useState("");
  const id = typedId ?? projectIdFrom(name);
  const [description, setDescription] = useState("");
  const [mode, setMode] = useState<"open" | "protected" | "private">("open");
  const create = useMutation({
    mutationFn: () => ok(adminApi.projects.create({ body: { id, name, description: description || null, mode } })),
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: keys.projects });
      navigate(projectPath(project.id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const generalError = create.error && !["id", "name", "description", "mode"].some((f) => fieldError(create.error, f));
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-project-title">
      <h2 id="create-project-title">New project</h2>
      <div className="row">
        <TextField
          label="Name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
          autoFocus
        />
        <TextField
          label="Id"
          required
          value={id}
          onChange={(e) => setTypedId(e.target.value)}
          error={fieldError(create.error, "id")}
          hint="Made from the name; used in URLs and API tokens."
        />
        <SelectField
          label="Collaboration mode"
          value={mode}
          onChange={(e) => setMode(e.target.value as typeof mode)}
          error={fieldError(create.error, "mode")}
        >
          <option value="open">open</option>
          <option value="protected">protected</option>
          <option value="private">private</option>
        </SelectField>
      </div>
      <TextField
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError(create.error, "description")}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create project
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      {generalError && <ErrorNote error={create.error} />}
    </form>
  );
}
