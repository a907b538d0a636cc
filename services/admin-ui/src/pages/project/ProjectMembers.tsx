import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, fieldError, ResourceForm, SelectField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";

interface Member {
  id: number;
  name: string;
  roles: string;
  addedAt: string;
}

/** Who may work in the project and with which project role (Owner, Member): `/projects/:id/access`. */
export function ProjectMembers({ projectId }: { projectId: string }) {
  const access = useQuery({
    queryKey: keys.projectAccess(projectId),
    queryFn: () => ok(adminApi.projectAccess.list({ params: { projectId } })),
  });
  const users = useQuery({ queryKey: keys.users, queryFn: () => ok(adminApi.users.list()) });
  const nameOf = (id: number) => {
    const user = users.data?.users.find((u) => u.id === id);
    return user?.name || user?.username || user?.email || `user ${id}`;
  };
  const roleName = (id: number) => access.data?.roles.find((r) => r.id === id)?.name ?? String(id);
  const members: Member[] | undefined = access.data?.users.map((u) => ({
    id: u.id,
    name: nameOf(u.id),
    roles: u.roles.map(roleName).join(", "),
    addedAt: u.addedAt,
  }));
  const remove = useResourceMutation({
    mutate: (member: Member) => ok(adminApi.projectAccess.remove({ params: { projectId, userId: member.id } })),
    invalidates: [keys.projectAccess(projectId), keys.users],
    confirm: (member) => `Remove ${member.name} from the project?`,
    done: (_, member) => `${member.name} removed from the project`,
  });
  const columns: Column<Member>[] = [
    { header: "Member", cell: (m) => m.name, sortBy: (m) => m.name },
    { header: "Project roles", cell: (m) => m.roles, sortBy: (m) => m.roles },
    { header: "Added", cell: (m) => new Date(m.addedAt).toLocaleString(), sortBy: (m) => m.addedAt },
    {
      header: "Actions",
      actions: true,
      cell: (m) => (
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(m)}>
          Remove {m.name}
        </button>
      ),
    },
  ];
  const memberIds = new Set(access.data?.users.map((u) => u.id));
  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNote error={access.error ?? users.error ?? remove.error} />
      {access.data && users.data && (
        <AddMember
          projectId={projectId}
          roles={access.data.roles}
          candidates={users.data.users.filter((u) => !memberIds.has(u.id)).map((u) => ({ id: u.id, name: nameOf(u.id) }))}
        />
      )}
      {!access.error && !users.error && (
        <DataTable
          label="Project members"
          noun="members"
          columns={columns}
          rows={users.data && members}
          rowKey={(m) => m.id}
          empty="No members yet: in a protected project only members submit change requests, and a private project is shown to its members only."
        />
      )}
    </section>
  );
}

function AddMember({
  projectId,
  roles,
  candidates,
}: {
  projectId: string;
  roles: Array<{ id: number; name: string }>;
  candidates: Array<{ id: number; name: string }>;
}) {
  const [userId, setUserId] = useState("");
  const [roleId, setRoleId] = useState("");
  const chosenRole = roleId || String(roles[0]?.id ?? "");
  const add = useResourceMutation({
    mutate: () =>
      ok(adminApi.projectAccess.add({ params: { projectId }, body: { roles: [Number(chosenRole)], users: [{ id: Number(userId) }] } })),
    invalidates: [keys.projectAccess(projectId), keys.users],
    done: () => `${candidates.find((c) => String(c.id) === userId)?.name ?? "User"} added to the project`,
    onSuccess: () => setUserId(""),
  });
  if (candidates.length === 0) return <p className="hint">Every user is a member already.</p>;
  return (
    <ResourceForm
      title="Add a member"
      showTitle={false}
      inline
      submitLabel="Add member"
      pending={add.isPending}
      error={add.error}
      fields={["users", "roles"]}
      onSubmit={() => add.mutate()}
    >
      <SelectField label="User" required value={userId} onChange={(e) => setUserId(e.target.value)} error={fieldError(add.error, "users")}>
        <option value="">Choose a user</option>
        {candidates.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Project role"
        value={chosenRole}
        onChange={(e) => setRoleId(e.target.value)}
        error={fieldError(add.error, "roles")}
      >
        {roles.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </SelectField>
    </ResourceForm>
  );
}
