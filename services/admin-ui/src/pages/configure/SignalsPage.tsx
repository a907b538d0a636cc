import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SignalEndpoint } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, TextField } from "../../components/forms.js";
import { SecretOnce } from "../../components/SecretOnce.js";
import { SwitchableCard } from "../../components/SwitchableCard.js";
import { keys } from "../../query-keys.js";

/** Signal endpoints: external systems post signals here, each source with its own token. */
export function SignalsPage() {
  const queryClient = useQueryClient();
  const endpoints = useQuery({ queryKey: keys.signalEndpoints, queryFn: () => ok(adminApi.signalEndpoints.list()) });
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.signalEndpoints });
  const create = useMutation({
    mutationFn: () => ok(adminApi.signalEndpoints.create({ body: { name, description: description || null, enabled: true } })),
    onSuccess: async () => {
      setName("");
      setDescription("");
      await refresh();
    },
  });
  const setEnabled = useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
      ok(enabled ? adminApi.signalEndpoints.enable({ params: { id } }) : adminApi.signalEndpoints.disable({ params: { id } })),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: number) => ok(adminApi.signalEndpoints.delete({ params: { id } })), onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <h1>Signal endpoints</h1>
      <form onSubmit={submit} className="card row" aria-label="New signal endpoint">
        <TextField
          label="Endpoint name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
        />
        <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
        <button type="submit" className="primary align-end" disabled={create.isPending}>
          Create endpoint
        </button>
        {!fieldError(create.error, "name") && <ErrorNote error={create.error} />}
      </form>
      <ErrorNote error={endpoints.error ?? setEnabled.error ?? remove.error} />
      {endpoints.data?.signalEndpoints.length === 0 && (
        <p className="empty">No signal endpoints. Create one, give each sending system a token, and react with project actions.</p>
      )}
      {endpoints.data?.signalEndpoints.map((endpoint) => (
        <SwitchableCard
          key={endpoint.id}
          name={endpoint.name}
          switchLabel={`Endpoint ${endpoint.name} enabled`}
          enabled={endpoint.enabled}
          onSwitch={(enabled) => setEnabled.mutate({ id: endpoint.id, enabled })}
          switching={setEnabled.isPending}
          deleteQuestion={`Delete the endpoint ${endpoint.name}?`}
          onDelete={() => remove.mutate(endpoint.id)}
          description={endpoint.description}
        >
          <EndpointTokens endpoint={endpoint} onChange={refresh} />
          <RecentSignals id={endpoint.id} />
        </SwitchableCard>
      ))}
    </section>
  );
}

function EndpointTokens({ endpoint, onChange }: { endpoint: SignalEndpoint; onChange: () => Promise<unknown> }) {
  const [name, setName] = useState("");
  const [secret, setSecret] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: () => ok(adminApi.signalEndpoints.createToken({ params: { id: endpoint.id }, body: { name } })),
    onSuccess: async (token) => {
      setName("");
      setSecret(token.token);
      await onChange();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => ok(adminApi.signalEndpoints.deleteToken({ params: { signalEndpointId: endpoint.id, id } })),
    onSuccess: onChange,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      {secret && <SecretOnce label="Signal token created." secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ul className="tags">
        {endpoint.tokens.map((token) => (
          <li key={token.id}>
            {token.name}{" "}
            <button
              type="button"
              onClick={() => confirm(`Delete the token ${token.name}?`) && remove.mutate(token.id)}
              aria-label={`Delete token ${token.name}`}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="row">
        <TextField
          label={`New token for ${endpoint.name}`}
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, "name")}
        />
        <button type="submit" className="align-end" disabled={create.isPending}>
          Create token
        </button>
      </form>
      <ErrorNote error={(!fieldError(create.error, "name") && create.error) || remove.error} />
    </>
  );
}

function RecentSignals({ id }: { id: number }) {
  const signals = useQuery({
    queryKey: keys.signals(id),
    queryFn: () => ok(adminApi.signalEndpoints.listSignals({ params: { id }, query: { limit: 10 } })),
  });
  return (
    <details>
      <summary>Recent signals ({signals.data?.signalEndpointSignals.length ?? 0})</summary>
      <ErrorNote error={signals.error} />
      <ul>
        {signals.data?.signalEndpointSignals.map((signal) => (
          <li key={signal.id}>
            {new Date(signal.createdAt).toLocaleString()} from {signal.tokenName}: <code>{JSON.stringify(signal.payload)}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}
