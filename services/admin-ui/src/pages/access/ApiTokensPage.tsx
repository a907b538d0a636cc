import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiToken } from "@vexil/contracts";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, SelectField, TextField } from "../../components/forms.js";
import { SecretOnce } from "../../components/SecretOnce.js";
import { projectsQuery, useAllEnvironments } from "../../queries.js";

const tokensKey = ["api-tokens"];

/** `project:environment.` stays readable; the random part is hidden after creation. */
const masked = (secret: string) => `${secret.slice(0, secret.indexOf(".") + 1)}••••••${secret.slice(-4)}`;

export function ApiTokensPage() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: tokensKey, queryFn: () => ok(adminApi.apiTokens.list()) });
  const [created, setCreated] = useState<ApiToken | undefined>();
  const revoke = useMutation({
    mutationFn: (secret: string) => ok(adminApi.apiTokens.delete({ params: { token: secret } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
  return (
    <section>
      <h1>API tokens</h1>
      <CreateApiToken onCreated={setCreated} />
      {created && (
        <SecretOnce label={`Token ${created.tokenName} created.`} secret={created.secret} onDismiss={() => setCreated(undefined)} />
      )}
      <ErrorNote error={tokens.error ?? revoke.error} />
      {tokens.data && tokens.data.tokens.length === 0 && (
        <p className="empty">No API tokens. Create one for each SDK or script that talks to Vexil.</p>
      )}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <table aria-label="API tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Projects</th>
              <th scope="col">Environment</th>
              <th scope="col">Secret</th>
              <th scope="col">Last seen</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.tokens.map((token) => (
              <tr key={token.secret}>
                <td>{token.tokenName}</td>
                <td>{token.type}</td>
                <td>{token.projects.join(", ")}</td>
                <td>{token.environment ?? "*"}</td>
                <td>
                  <code>{masked(token.secret)}</code>
                </td>
                <td>{token.seenAt ? new Date(token.seenAt).toLocaleString() : "never"}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    disabled={revoke.isPending}
                    onClick={() =>
                      confirm(`Revoke ${token.tokenName}? Whatever uses it is refused from now on.`) && revoke.mutate(token.secret)
                    }
                  >
                    Revoke {token.tokenName}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CreateApiToken({ onCreated }: { onCreated: (token: ApiToken) => void }) {
  const queryClient = useQueryClient();
  const environments = useAllEnvironments();
  const projects = useQuery(projectsQuery);
  const [tokenName, setTokenName] = useState("");
  const [type, setType] = useState<"client" | "frontend" | "admin">("client");
  const [environment, setEnvironment] = useState("development");
  const [project, setProject] = useState("*");
  const create = useMutation({
    mutationFn: () =>
      ok(
        adminApi.apiTokens.create({
          body: { tokenName, type, environment: type === "admin" ? "*" : environment, projects: type === "admin" ? ["*"] : [project] },
        }),
      ),
    onSuccess: async (token) => {
      setTokenName("");
      onCreated(token);
      await queryClient.invalidateQueries({ queryKey: tokensKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-token-title">
      <h2 id="create-token-title">New API token</h2>
      <div className="row">
        <TextField
          label="Token name"
          required
          value={tokenName}
          onChange={(e) => setTokenName(e.target.value)}
          error={fieldError(create.error, "tokenName")}
        />
        <SelectField label="Token type" value={type} onChange={(e) => setType(e.target.value as typeof type)}>
          <option value="client">client (server SDKs)</option>
          <option value="frontend">frontend (browser and mobile SDKs)</option>
          <option value="admin">admin (everything)</option>
        </SelectField>
        {type !== "admin" && (
          <>
            <SelectField
              label="Project"
              value={project}
              onChange={(e) => setProject(e.target.value)}
              error={fieldError(create.error, "projects")}
            >
              <option value="*">All projects</option>
              {projects.data?.projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </SelectField>
            <SelectField
              label="Environment"
              value={environment}
              onChange={(e) => setEnvironment(e.target.value)}
              error={fieldError(create.error, "environment")}
            >
              {environments.data?.environments.map((env) => (
                <option key={env.name}>{env.name}</option>
              ))}
            </SelectField>
          </>
        )}
      </div>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create token
      </button>
      {!["tokenName", "projects", "environment"].some((f) => fieldError(create.error, f)) && <ErrorNote error={create.error} />}
    </form>
  );
}
