import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

const inAWeek = () => new Date(Date.now() + 7 * 24 * 3600_000).toISOString().slice(0, 10);

/** Public signup links: whoever has one can create an account with its role until it expires. */
export function InviteLinks({ roles }: { roles: { id: number; name: string }[] }) {
  const queryClient = useQueryClient();
  const links = useQuery({ queryKey: keys.inviteLinks, queryFn: () => ok(adminApi.inviteLinks.list()) });
  const [name, setName] = useState("");
  const [expires, setExpires] = useState(inAWeek);
  const [roleId, setRoleId] = useState(3);
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.inviteLinks });
  const create = useMutation({
    mutationFn: () => ok(adminApi.inviteLinks.create({ body: { name, expiresAt: new Date(`${expires}T23:59:59`).toISOString(), roleId } })),
    onSuccess: async () => {
      setName("");
      await refresh();
    },
  });
  const setEnabled = useMutation({
    mutationFn: ({ token, enabled }: { token: string; enabled: boolean }) =>
      ok(adminApi.inviteLinks.update({ params: { token }, body: { enabled } })),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite links</h2>
      <ErrorNote error={links.error ?? setEnabled.error} />
      {links.data?.tokens.length === 0 && (
        <p className="hint">No invite links yet: create one to let people sign up with a role without an admin adding each of them.</p>
      )}
      <ul>
        {links.data?.tokens.map((link) => (
          <li key={link.secret}>
            <strong>{link.name}</strong> ({link.role.name}, until {new Date(link.expiresAt).toLocaleDateString()}){" "}
            {link.url && <code>{link.url}</code>}{" "}
            <label className="check">
              <input
                type="checkbox"
                role="switch"
                className="switch"
                checked={link.enabled}
                onChange={(e) => setEnabled.mutate({ token: link.secret, enabled: e.target.checked })}
                aria-label={`Invite link ${link.name} usable`}
              />
            </label>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="row">
        <TextField
          label="Link name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
        />
        <TextField
          label="Expires on"
          type="date"
          required
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          error={fieldError(create.error, "expiresAt")}
        />
        <SelectField label="Role of new users" value={roleId} onChange={(e) => setRoleId(Number(e.target.value))}>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="align-end" disabled={create.isPending}>
          Create invite link
        </button>
      </form>
      {!fieldError(create.error, "name") && !fieldError(create.error, "expiresAt") && <ErrorNote error={create.error} />}
    </section>
  );
}
