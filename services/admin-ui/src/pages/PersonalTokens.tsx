import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../api.js";
import { ErrorNote, fieldError, TextField } from "../components/forms.js";
import { SecretOnce } from "../components/SecretOnce.js";

const patsKey = ["personal-access-tokens"];
const inThirtyDays = () => new Date(Date.now() + 30 * 24 * 3600_000).toISOString().slice(0, 10);

/** The signed-in user's personal access tokens: act as yourself from scripts. */
export function PersonalTokens() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: patsKey, queryFn: () => ok(adminApi.users.listTokens()) });
  const [description, setDescription] = useState("");
  const [expires, setExpires] = useState(inThirtyDays);
  const [secret, setSecret] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: patsKey });
  const create = useMutation({
    mutationFn: () => ok(adminApi.users.createToken({ body: { description, expiresAt: new Date(`${expires}T23:59:59`).toISOString() } })),
    onSuccess: async (created) => {
      setDescription("");
      setSecret(created.secret);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: number) => ok(adminApi.users.deleteToken({ params: { id } })), onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby="pats-title">
      <h2 id="pats-title">Personal access tokens</h2>
      {secret && <SecretOnce label="Personal access token created." secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNote error={tokens.error ?? remove.error} />
      <ul>
        {tokens.data?.pats.map((pat) => (
          <li key={pat.id}>
            {pat.description} (expires {new Date(pat.expiresAt).toLocaleDateString()}){" "}
            <button
              type="button"
              className="danger"
              onClick={() => confirm(`Delete the token ${pat.description}?`) && remove.mutate(pat.id)}
            >
              Delete {pat.description}
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="row">
        <TextField
          label="Token description"
          required
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(create.error, "description")}
        />
        <TextField
          label="Expires on"
          type="date"
          required
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          error={fieldError(create.error, "expiresAt")}
        />
        <button type="submit" className="align-end" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {!fieldError(create.error, "description") && !fieldError(create.error, "expiresAt") && <ErrorNote error={create.error} />}
    </section>
  );
}
