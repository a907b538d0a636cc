import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { User } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { InviteLinks } from "./InviteLinks.js";
import { useCurrentUser } from "../../session.js";
import { keys } from "../../query-keys.js";

export function UsersPage() {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: keys.users, queryFn: () => ok(adminApi.users.list()) });
  const remove = useMutation({
    mutationFn: (id: number) => ok(adminApi.users.delete({ params: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.users }),
  });
  const [editing, setEditing] = useState<number | undefined>();
  const roleName = (id: number) => users.data?.rootRoles.find((r) => r.id === id)?.name ?? String(id);
  const me = useCurrentUser().data?.user.id;
  const projectRoles = useProjectRoles();
  return (
    <section>
      <h1>Users</h1>
      <CreateUser roles={users.data?.rootRoles ?? []} />
      <ErrorNote error={users.error ?? remove.error} />
      {users.data && (
        <table aria-label="Users">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Root role</th>
              <th scope="col">Project roles</th>
              <th scope="col">Last seen</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data.users.map((user) => {
              const label = user.username ?? user.email ?? String(user.id);
              if (editing === user.id) {
                return (
                  <tr key={user.id}>
                    <td colSpan={5}>
                      <EditUser user={user} label={label} roles={users.data.rootRoles} onDone={() => setEditing(undefined)} />
                    </td>
                  </tr>
                );
              }
              return (
                <tr key={user.id}>
                  <td>
                    {user.name ?? label}
                    {user.name && <div className="hint">{label}</div>}
                  </td>
                  <td>{user.rootRole === undefined ? "—" : roleName(user.rootRole)}</td>
                  <td>{projectRoles.data?.get(user.id)?.join("; ") || "—"}</td>
                  <td>{user.seenAt ? new Date(user.seenAt).toLocaleString() : "never"}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setEditing(user.id)} disabled={editing !== undefined}>
                      Edit {label}
                    </button>
                    {/* Your own account is not deleted from here: that would sign you out for good. */}
                    {user.id !== me && (
                      <button
                        type="button"
                        className="danger"
                        disabled={remove.isPending}
                        onClick={() =>
                          confirm(`Delete ${label}? Their sessions and personal access tokens end too.`) && remove.mutate(user.id)
                        }
                      >
                        Delete {label}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <InviteLinks roles={users.data?.rootRoles ?? []} />
    </section>
  );
}

/** Each user's project roles across every project ("Shop: Owner"), read from each project's access list. */
function useProjectRoles() {
  return useQuery({
    queryKey: [...keys.users, "project-roles"],
    queryFn: async () => {
      const { projects } = await ok(adminApi.projects.list());
      const lists = await Promise.all(
        projects.map(async (project) => ({
          project,
          access: await ok(adminApi.projectAccess.list({ params: { projectId: project.id } })),
        })),
      );
      const roles = new Map<number, string[]>();
      for (const { project, access } of lists) {
        for (const user of access.users) {
          const names = user.roles.map((id) => access.roles.find((r) => r.id === id)?.name ?? String(id)).join(", ");
          roles.set(user.id, [...(roles.get(user.id) ?? []), `${project.name}: ${names}`]);
        }
      }
      return roles;
    },
  });
}

function CreateUser({ roles }: { roles: { id: number; name: string }[] }) {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState("");
  const [email, setEmail] = useState("");
  const [rootRole, setRootRole] = useState(3);
  const [password, setPassword] = useState("");
  const create = useMutation({
    mutationFn: () =>
      ok(
        adminApi.users.create({
          body: { username: username || undefined, email: email || undefined, rootRole, password: password || undefined },
        }),
      ),
    onSuccess: async () => {
      setUsername("");
      setEmail("");
      setPassword("");
      await queryClient.invalidateQueries({ queryKey: keys.users });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const fields = ["username", "email", "password", "rootRole"];
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-user-title">
      <h2 id="create-user-title">New user</h2>
      <div className="row">
        <TextField
          label="Username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          error={fieldError(create.error, "username")}
        />
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(create.error, "email")}
        />
        <SelectField label="Root role" value={rootRole} onChange={(e) => setRootRole(Number(e.target.value))}>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError(create.error, "password")}
          hint="Optional: without one, share an invite link instead."
        />
      </div>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create user
      </button>
      {!fields.some((f) => fieldError(create.error, f)) && <ErrorNote error={create.error} />}
    </form>
  );
}

/** Changes a user's name, email and root role; what the API refuses shows next to the field. */
function EditUser({
  user,
  label,
  roles,
  onDone,
}: {
  user: User;
  label: string;
  roles: { id: number; name: string }[];
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name ?? "");
  const [email, setEmail] = useState(user.email ?? "");
  const [rootRole, setRootRole] = useState(user.rootRole ?? 3);
  const save = useMutation({
    mutationFn: () => ok(adminApi.users.update({ params: { id: user.id }, body: { name, email: email || undefined, rootRole } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.users });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const fields = ["name", "email", "rootRole"];
  return (
    <form onSubmit={submit} aria-label={`Edit ${label}`}>
      <div className="row">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fieldError(save.error, "name")} />
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(save.error, "email")}
        />
        <SelectField
          label="Root role"
          value={rootRole}
          onChange={(e) => setRootRole(Number(e.target.value))}
          error={fieldError(save.error, "rootRole")}
        >
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save {label}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {!fields.some((f) => fieldError(save.error, f)) && <ErrorNote error={save.error} />}
    </form>
  );
}
