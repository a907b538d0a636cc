import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { AccountTokens, type TokenCalls } from "../../components/AccountTokens.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

/** A service account's tokens: scripts act as the account, with its root role. */
const tokensOf = (id: number): TokenCalls => ({
  queryKey: keys.serviceAccountTokens(id),
  list: () => ok(adminApi.serviceAccounts.listTokens({ params: { id } })),
  create: (body) => ok(adminApi.serviceAccounts.createToken({ params: { id }, body })),
  remove: (tokenId) => ok(adminApi.serviceAccounts.deleteToken({ params: { id, tokenId } })),
});

export function ServiceAccountsPage() {
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: keys.serviceAccounts, queryFn: () => ok(adminApi.serviceAccounts.list()) });
  const [username, setUsername] = useState("");
  const [name, setName] = useState("");
  const [rootRole, setRootRole] = useState(3);
  const [showTokensOf, setShowTokensOf] = useState<number | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.serviceAccounts });
  const create = useMutation({
    mutationFn: () => ok(adminApi.serviceAccounts.create({ body: { username, name: name || undefined, rootRole } })),
    onSuccess: async () => {
      setUsername("");
      setName("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => ok(adminApi.serviceAccounts.delete({ params: { id } })),
    onSuccess: async (_, id) => {
      if (showTokensOf === id) setShowTokensOf(undefined);
      await refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const roles = accounts.data?.rootRoles ?? [];
  const tokensShown = accounts.data?.serviceAccounts.find((account) => account.id === showTokensOf);
  return (
    <section>
      <h1>Service accounts</h1>
      <form onSubmit={submit} className="card" aria-labelledby="create-account-title">
        <h2 id="create-account-title">New service account</h2>
        <div className="row">
          <TextField
            label="Username"
            required
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            error={fieldError(create.error, "username")}
          />
          <TextField label="Display name" value={name} onChange={(e) => setName(e.target.value)} />
          <SelectField label="Root role" value={rootRole} onChange={(e) => setRootRole(Number(e.target.value))}>
            {roles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </SelectField>
        </div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create service account
        </button>
        {!fieldError(create.error, "username") && <ErrorNote error={create.error} />}
      </form>
      <ErrorNote error={accounts.error ?? remove.error} />
      {accounts.data?.serviceAccounts.length === 0 && (
        <p className="empty">No service accounts. Scripts and CI jobs that act on their own get one.</p>
      )}
      {(accounts.data?.serviceAccounts.length ?? 0) > 0 && (
        <table aria-label="Service accounts">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Root role</th>
              <th scope="col">Last seen</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {accounts.data!.serviceAccounts.map((account) => (
              <tr key={account.id}>
                <td>
                  {account.name ?? account.username}
                  <div className="hint">{account.username}</div>
                </td>
                <td>{roles.find((r) => r.id === account.rootRole)?.name ?? account.rootRole}</td>
                <td>{account.seenAt ? new Date(account.seenAt).toLocaleString() : "never"}</td>
                <td>
                  <button
                    type="button"
                    aria-expanded={showTokensOf === account.id}
                    aria-controls="service-account-tokens"
                    onClick={() => setShowTokensOf(showTokensOf === account.id ? undefined : account.id)}
                  >
                    Tokens of {account.username}
                  </button>{" "}
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm(`Delete ${account.username}? Its tokens stop working.`) && remove.mutate(account.id)}
                  >
                    Delete {account.username}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div id="service-account-tokens">
        {tokensShown && <AccountTokens key={tokensShown.id} title={`Tokens of ${tokensShown.username}`} calls={tokensOf(tokensShown.id)} />}
      </div>
    </section>
  );
}
