import { useQuery } from "@tanstack/react-query";
import type { Group, GroupInput, User } from "@vexil/contracts";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, fieldError, ResourceForm, SelectField, TextAreaField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceList, useResourceMutation } from "../../resource.js";

/** A project role a group holds, as the projects' access lists say. */
interface HeldRole {
  projectId: string;
  projectName: string;
  roles: { id: number; name: string }[];
}

const groupProjectRolesKey = [...keys.groups, "project-roles"];

/** Each group's project roles across every project, and the project roles there are, read from each project's access list. */
function useGroupProjectRoles() {
  return useQuery({
    queryKey: groupProjectRolesKey,
    queryFn: async () => {
      const { projects } = await ok(adminApi.projects.list());
      const lists = await Promise.all(
        projects.map(async (project) => ({
          project,
          access: await ok(adminApi.projectAccess.list({ params: { projectId: project.id } })),
        })),
      );
      const held = new Map<number, HeldRole[]>();
      for (const { project, access } of lists) {
        for (const group of access.groups) {
          const roles = group.roles.map((id) => ({ id, name: access.roles.find((r) => r.id === id)?.name ?? String(id) }));
          held.set(group.id, [...(held.get(group.id) ?? []), { projectId: project.id, projectName: project.name, roles }]);
        }
      }
      return { held, projects, projectRoles: lists[0]?.access.roles ?? [] };
    },
  });
}

const userLabel = (user: User) => user.name || user.username || user.email || `user ${user.id}`;

/**
 * Groups of users (as Unleash Enterprise has them): a root role the members hold at least, project
 * roles, and the identity provider's groups whose members the group follows at each single sign-on.
 */
export function GroupsPage() {
  const groups = useResourceList({ key: keys.groups, list: () => ok(adminApi.groups.list()), rows: (data) => data.groups });
  const users = useQuery({ queryKey: keys.users, queryFn: () => ok(adminApi.users.list()) });
  const projectRoles = useGroupProjectRoles();
  const [editing, setEditing] = useState<number | undefined>();
  const remove = useResourceMutation({
    mutate: (group: Group) => ok(adminApi.groups.delete({ params: { groupId: group.id } })),
    invalidates: [keys.groups],
    confirm: (group) => `Delete the group ${group.name}? Its members lose the roles they hold through it.`,
    done: (_, group) => `Group ${group.name} deleted`,
    onSuccess: (_, group) => editing === group.id && setEditing(undefined),
  });
  const rootRoleName = (id: number | null) => (id === null ? "—" : (users.data?.rootRoles.find((r) => r.id === id)?.name ?? String(id)));
  const columns: Column<Group>[] = [
    {
      header: "Group",
      cell: (g) => (
        <>
          {g.name}
          {g.description && <div className="hint">{g.description}</div>}
        </>
      ),
      sortBy: (g) => g.name,
    },
    { header: "Identity provider groups", cell: (g) => g.mappingsSSO.join(", ") || "—" },
    { header: "Root role", cell: (g) => rootRoleName(g.rootRole) },
    {
      header: "Project roles",
      cell: (g) =>
        projectRoles.data?.held
          .get(g.id)
          ?.map((p) => `${p.projectName}: ${p.roles.map((r) => r.name).join(", ")}`)
          .join("; ") || "—",
    },
    { header: "Members", cell: (g) => g.userCount, sortBy: (g) => g.userCount },
    {
      header: "Actions",
      actions: true,
      cell: (g) => (
        <>
          <button type="button" aria-expanded={editing === g.id} aria-controls="group-editor" onClick={() => setEditing(g.id)}>
            Edit {g.name}
          </button>
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(g)}>
            Delete {g.name}
          </button>
        </>
      ),
    },
  ];
  const edited = groups.rows?.find((g) => g.id === editing);
  return (
    <section>
      <h1>Groups</h1>
      <p className="hint">
        With group syncing on in Single sign-on, a person&apos;s groups follow the identity provider&apos;s at each sign-in: they belong to
        exactly the groups that map one of theirs. Groups that map none are managed here by hand.
      </p>
      <ErrorNote error={groups.query.error ?? users.error ?? projectRoles.error ?? remove.error} />
      {users.data && <GroupForm key="new" users={users.data.users} roles={users.data.rootRoles} onDone={() => undefined} />}
      {groups.rows && (
        <DataTable
          label="Groups"
          noun="groups"
          columns={columns}
          rows={groups.rows}
          rowKey={(g) => g.id}
          empty="No groups yet. A group gives its members roles, and can follow an identity provider's group."
        />
      )}
      <div id="group-editor">
        {edited && users.data && (
          <>
            <GroupForm
              key={edited.id}
              group={edited}
              users={users.data.users}
              roles={users.data.rootRoles}
              onDone={() => setEditing(undefined)}
            />
            {projectRoles.data && (
              <GroupProjectRoles
                group={edited}
                held={projectRoles.data.held.get(edited.id) ?? []}
                projects={projectRoles.data.projects}
                projectRoles={projectRoles.data.projectRoles}
              />
            )}
          </>
        )}
      </div>
    </section>
  );
}

const groupFields = ["name", "description", "mappingsSSO", "rootRole", "users"] as const;

/** Creates a group, or edits one: name, description, the identity provider's groups it maps, root role, members. */
function GroupForm({
  group,
  users,
  roles,
  onDone,
}: {
  group?: Group;
  users: User[];
  roles: { id: number; name: string }[];
  onDone: () => void;
}) {
  const [name, setName] = useState(group?.name ?? "");
  const [description, setDescription] = useState(group?.description ?? "");
  const [mappings, setMappings] = useState(group?.mappingsSSO.join("\n") ?? "");
  const [rootRole, setRootRole] = useState<number | null>(group?.rootRole ?? null);
  const [members, setMembers] = useState<number[]>(group?.users.map((u) => u.user.id) ?? []);
  const body = (): GroupInput => ({
    name,
    description: description || null,
    mappingsSSO: mappings
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
    rootRole,
    users: members.map((id) => ({ user: { id } })),
  });
  const save = useResourceMutation({
    mutate: () =>
      group ? ok(adminApi.groups.update({ params: { groupId: group.id }, body: body() })) : ok(adminApi.groups.create({ body: body() })),
    invalidates: [keys.groups],
    done: (saved) => `Group ${saved.name} ${group ? "saved" : "created"}`,
    onSuccess: () => {
      if (group) return onDone();
      setName("");
      setDescription("");
      setMappings("");
      setRootRole(null);
      setMembers([]);
    },
  });
  return (
    <ResourceForm
      title={group ? `Edit group ${group.name}` : "New group"}
      submitLabel={group ? `Save ${group.name}` : "Create group"}
      pending={save.isPending}
      error={save.error}
      fields={groupFields}
      onSubmit={() => save.mutate()}
      extraActions={
        group && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )
      }
    >
      <div className="row">
        <TextField
          label="Group name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, "name")}
        />
        <TextField
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(save.error, "description")}
        />
      </div>
      <div className="row">
        <TextAreaField
          label="Identity provider groups"
          rows={3}
          value={mappings}
          onChange={(e) => setMappings(e.target.value)}
          error={fieldError(save.error, "mappingsSSO")}
          hint="One group name per line, as the provider sends them. People in any of them become members at sign-in."
        />
        <SelectField
          label="Root role"
          value={rootRole ?? ""}
          onChange={(e) => setRootRole(e.target.value === "" ? null : Number(e.target.value))}
          error={fieldError(save.error, "rootRole")}
          hint="Members hold at least this role; their own may be stronger."
        >
          <option value="">None</option>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Members"
          multiple
          size={Math.min(6, Math.max(3, users.length))}
          value={members.map(String)}
          onChange={(e) => setMembers([...e.target.selectedOptions].map((o) => Number(o.value)))}
          error={fieldError(save.error, "users")}
          hint="Ctrl or ⌘ to choose several. Single sign-on changes the members of groups that map the provider's groups."
        >
          {users.map((u) => (
            <option key={u.id} value={u.id}>
              {userLabel(u)}
            </option>
          ))}
        </SelectField>
      </div>
    </ResourceForm>
  );
}

/** The project roles a group gives its members: added and removed through each project's access. */
function GroupProjectRoles({
  group,
  held,
  projects,
  projectRoles,
}: {
  group: Group;
  held: HeldRole[];
  projects: { id: string; name: string }[];
  projectRoles: { id: number; name: string }[];
}) {
  const [projectId, setProjectId] = useState(projects[0]?.id ?? "");
  const [roleId, setRoleId] = useState(projectRoles.find((r) => r.name === "Member")?.id ?? projectRoles[0]?.id ?? 0);
  const projectName = (id: string) => projects.find((p) => p.id === id)?.name ?? id;
  const add = useResourceMutation({
    mutate: () =>
      ok(adminApi.projectAccess.add({ params: { projectId }, body: { roles: [roleId], users: [], groups: [{ id: group.id }] } })),
    invalidates: () => [keys.groups, keys.projectAccess(projectId)],
    done: () => `${group.name} given ${projectRoles.find((r) => r.id === roleId)?.name ?? "the role"} in ${projectName(projectId)}`,
  });
  const remove = useResourceMutation({
    mutate: (role: HeldRole) => ok(adminApi.projectAccess.removeGroup({ params: { projectId: role.projectId, groupId: group.id } })),
    invalidates: (_, role) => [keys.groups, keys.projectAccess(role.projectId)],
    confirm: (role) => `Take ${group.name}'s roles in ${role.projectName} away?`,
    done: (_, role) => `${group.name} removed from ${role.projectName}`,
  });
  const columns: Column<HeldRole>[] = [
    { header: "Project", cell: (r) => r.projectName, sortBy: (r) => r.projectName },
    { header: "Project roles", cell: (r) => r.roles.map((role) => role.name).join(", ") },
    {
      header: "Actions",
      actions: true,
      cell: (r) => (
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(r)}>
          Remove {group.name} from {r.projectName}
        </button>
      ),
    },
  ];
  return (
    <section className="card" aria-labelledby="group-projects-title">
      <h2 id="group-projects-title">Project roles of {group.name}</h2>
      <ErrorNote error={remove.error} />
      <DataTable
        label={`Projects of ${group.name}`}
        noun="projects"
        columns={columns}
        rows={held}
        rowKey={(r) => r.projectId}
        empty="No project roles: members work in projects with their own roles only."
      />
      <ResourceForm
        title={`Give ${group.name} a project role`}
        showTitle={false}
        inline
        submitLabel="Give project role"
        pending={add.isPending}
        error={add.error}
        fields={["roles", "groups"]}
        onSubmit={() => add.mutate()}
      >
        <SelectField label="Project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Project role"
          value={roleId}
          onChange={(e) => setRoleId(Number(e.target.value))}
          error={fieldError(add.error, "roles")}
        >
          {projectRoles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
      </ResourceForm>
    </section>
  );
}
