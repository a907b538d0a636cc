import { useMutation, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import type { CreatePersonalAccessToken, PersonalAccessToken } from "@vexil/contracts";
import { useId, useState, type FormEvent } from "react";
import { ErrorNote, fieldError, TextField } from "./forms.js";
import { SecretOnce } from "./SecretOnce.js";

const inThirtyDays = () => new Date(Date.now() + 30 * 24 * 3600_000).toISOString().slice(0, 10);

/** Where an account's tokens live in the API: a person's own, or a service account's. */
export interface TokenCalls {
  queryKey: QueryKey;
  list: () => Promise<{ pats: PersonalAccessToken[] }>;
  create: (body: CreatePersonalAccessToken) => Promise<{ secret: string }>;
  remove: (id: number) => Promise<unknown>;
}

/** The tokens that act as one account: listed, created (the secret shown once) and deleted after a confirmation. */
export function AccountTokens({ title, calls }: { title: string; calls: TokenCalls }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: calls.queryKey, queryFn: calls.list });
  const [description, setDescription] = useState("");
  const [expires, setExpires] = useState(inThirtyDays);
  const [secret, setSecret] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: calls.queryKey });
  const create = useMutation({
    mutationFn: () => calls.create({ description, expiresAt: new Date(`${expires}T23:59:59`).toISOString() }),
    onSuccess: async (created) => {
      setDescription("");
      setSecret(created.secret);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: calls.remove, onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {secret && <SecretOnce label="Token created." secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNote error={tokens.error ?? remove.error} />
      {tokens.data?.pats.length === 0 && <p className="empty">No tokens yet. Create one for each script or pipeline.</p>}
      <ul>
        {tokens.data?.pats.map((pat) => (
          <li key={pat.id}>
            {pat.description} (expires {new Date(pat.expiresAt).toLocaleDateString()}, last used{" "}
            {pat.seenAt ? new Date(pat.seenAt).toLocaleString() : "never"}){" "}
            <button
              type="button"
              className="danger"
              onClick={() =>
                confirm(`Delete the token ${pat.description}? Requests with it are refused from then on.`) && remove.mutate(pat.id)
              }
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
