import { useQuery } from "@tanstack/react-query";
import type { ApiToken } from "@vexil/contracts";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, fieldError, ResourceForm, SelectField, TextField } from "../../components/forms.js";
import { SecretOnce } from "../../components/SecretOnce.js";
import { projectsQuery, useAllEnvironments } from "../../queries.js";
import { keys } from "../../query-keys.js";
import { useResourceList, useResourceMutation } from "../../resource.js";

/** `project:environment.` stays readable; the random part is hidden after creation. */
const masked = (secret: string) => `${secret.slice(0, secret.indexOf(".") + 1)}••••••${secret.slice(-4)}`;

export function ApiTokensPage() {
  const tokens = useResourceList({ key: keys.apiTokens, list: () => ok(adminApi.apiTokens.list()), rows: (data) => data.tokens });
  const [created, setCreated] = useState<ApiToken | undefined>();
  const revoke = useResourceMutation({
    mutate: (token: ApiToken) => ok(adminApi.apiTokens.delete({ params: { token: token.secret } })),
    invalidates: [keys.apiTokens],
    confirm: (token) => `Revoke ${token.tokenName}? Whatever uses it is refused from now on.`,
    done: (_, token) => `Token ${token.tokenName} revoked`,
  });
  const columns: Column<ApiToken>[] = [
    { header: "Name", cell: (token) => token.tokenName, sortBy: (token) => token.tokenName },
    { header: "Type", cell: (token) => token.type, sortBy: (token) => token.type },
    { header: "Projects", cell: (token) => token.projects.join(", ") },
    { header: "Environment", cell: (token) => token.environment ?? "*", sortBy: (token) => token.environment ?? "*" },
    { header: "Secret", cell: (token) => <code>{masked(token.secret)}</code> },
    {
      header: "Last seen",
      cell: (token) => (token.seenAt ? new Date(token.seenAt).toLocaleString() : "never"),
      sortBy: (token) => token.seenAt ?? "",
    },
    {
      header: "Actions",
      actions: true,
      cell: (token) => (
        <button type="button" className="danger" disabled={revoke.isPending} onClick={() => revoke.run(token)}>
          Revoke {token.tokenName}
        </button>
      ),
    },
  ];
  return (
    <section>
      <h1>API tokens</h1>
      <CreateApiToken onCreated={setCreated} />
      {created && (
        <SecretOnce label={`Token ${created.tokenName} created.`} secret={created.secret} onDismiss={() => setCreated(undefined)} />
      )}
      <ErrorNote error={tokens.query.error ?? revoke.error} />
      {!tokens.query.error && (
        <DataTable
          label="API tokens"
          noun="tokens"
          columns={columns}
          rows={tokens.rows}
          rowKey={(token) => token.secret}
          empty="No API tokens. Create one for each SDK or script that talks to Vexil."
        />
      )}
    </section>
  );
}

function CreateApiToken({ onCreated }: { onCreated: (token: ApiToken) => void }) {
  const environments = useAllEnvironments();
  const projects = useQuery(projectsQuery);
  const [tokenName, setTokenName] = useState("");
  const [type, setType] = useState<"client" | "frontend" | "admin">("client");
  const [environment, setEnvironment] = useState("development");
  const [project, setProject] = useState("*");
  const create = useResourceMutation({
    mutate: () =>
      ok(
        adminApi.apiTokens.create({
          body: { tokenName, type, environment: type === "admin" ? "*" : environment, projects: type === "admin" ? ["*"] : [project] },
        }),
      ),
    invalidates: [keys.apiTokens],
    done: (token) => `Token ${token.tokenName} created`,
    onSuccess: (token) => {
      setTokenName("");
      onCreated(token);
    },
  });
  return (
    <ResourceForm
      title="New API token"
      submitLabel="Create token"
      pending={create.isPending}
      error={create.error}
      fields={["tokenName", "projects", "environment"]}
      onSubmit={() => create.mutate()}
    >
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
    </ResourceForm>
  );
}
