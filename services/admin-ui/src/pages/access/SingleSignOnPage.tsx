import { useQuery } from "@tanstack/react-query";
import type { SamlSettings } from "@vexil/contracts";
import { useId, useState } from "react";
import { adminApi, ok } from "../../api.js";
import { CheckField, ErrorNote, fieldError, ResourceForm, SelectField, TextAreaField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";

/** What the form does with a stored certificate: it is never shown, only kept, replaced or removed. */
type SecretChange = { kind: "keep" } | { kind: "replace"; value: string } | { kind: "remove" };

const keep: SecretChange = { kind: "keep" };

/** The value to save: the stored one when kept (read from the API, never put on screen). */
function secretToSave(stored: string | undefined, change: SecretChange): string | undefined {
  if (change.kind === "keep") return stored;
  if (change.kind === "remove") return undefined;
  return change.value || undefined;
}

const fields = [
  "enabled",
  "entityId",
  "signOnUrl",
  "certificate",
  "signOutUrl",
  "spCertificate",
  "autoCreate",
  "emailDomains",
  "defaultRootRole",
  "defaultRootRoleId",
  "enableGroupSyncing",
  "groupJsonPath",
] as const;

/** The single sign-on settings (`/api/admin/auth/saml/settings`), with where the identity provider finds this server. */
export function SingleSignOnPage() {
  const settings = useQuery({ queryKey: keys.samlSettings, queryFn: () => ok(adminApi.saml.getSettings()) });
  const users = useQuery({ queryKey: keys.users, queryFn: () => ok(adminApi.users.list()) });
  const origin = window.location.origin;
  return (
    <section>
      <h1>Single sign-on</h1>
      <section className="card" aria-labelledby="sp-title">
        <h2 id="sp-title">For your identity provider</h2>
        <p className="hint">
          Built on <code>PUBLIC_URL</code> when the server has one; the metadata always names the addresses the server uses.
        </p>
        <dl>
          <dt>Service provider entity id</dt>
          <dd>
            <code>{origin}</code>
          </dd>
          <dt>Assertion consumer service (HTTP-POST)</dt>
          <dd>
            <code>{origin}/auth/saml/callback</code>
          </dd>
          <dt>Single logout answers (HTTP-Redirect)</dt>
          <dd>
            <code>{origin}/auth/saml/logout/callback</code>
          </dd>
          <dt>Metadata</dt>
          <dd>
            <a href="/auth/saml/metadata">Service provider metadata (XML)</a>
          </dd>
        </dl>
      </section>
      <ErrorNote error={settings.error ?? users.error} />
      {settings.data && users.data && <SamlForm saved={settings.data} roles={users.data.rootRoles} />}
    </section>
  );
}

function SamlForm({ saved, roles }: { saved: SamlSettings; roles: { id: number; name: string }[] }) {
  const [enabled, setEnabled] = useState(saved.enabled ?? false);
  const [entityId, setEntityId] = useState(saved.entityId ?? "");
  const [signOnUrl, setSignOnUrl] = useState(saved.signOnUrl ?? "");
  const [signOutUrl, setSignOutUrl] = useState(saved.signOutUrl ?? "");
  const [certificate, setCertificate] = useState<SecretChange>(keep);
  const [spCertificate, setSpCertificate] = useState<SecretChange>(keep);
  const [autoCreate, setAutoCreate] = useState(saved.autoCreate ?? false);
  const [emailDomains, setEmailDomains] = useState(saved.emailDomains ?? "");
  const savedRole = saved.defaultRootRoleId ?? roles.find((r) => r.name === (saved.defaultRootRole ?? "Viewer"))?.id ?? 3;
  const [defaultRootRoleId, setDefaultRootRoleId] = useState(savedRole);
  const [enableGroupSyncing, setEnableGroupSyncing] = useState(saved.enableGroupSyncing ?? false);
  const [groupJsonPath, setGroupJsonPath] = useState(saved.groupJsonPath ?? "");
  const save = useResourceMutation({
    mutate: () => {
      const roleName = roles.find((r) => r.id === defaultRootRoleId)?.name;
      const body: SamlSettings = {
        enabled,
        entityId: entityId || undefined,
        signOnUrl: signOnUrl || undefined,
        certificate: secretToSave(saved.certificate, certificate),
        signOutUrl: signOutUrl || undefined,
        spCertificate: secretToSave(saved.spCertificate, spCertificate),
        autoCreate,
        emailDomains: emailDomains || undefined,
        defaultRootRoleId,
        ...(roleName === "Admin" || roleName === "Editor" || roleName === "Viewer" ? { defaultRootRole: roleName } : {}),
        enableGroupSyncing,
        groupJsonPath: groupJsonPath || undefined,
      };
      return ok(adminApi.saml.updateSettings({ body }));
    },
    invalidates: [keys.samlSettings],
    done: () => "Single sign-on settings saved",
    onSuccess: () => {
      setCertificate(keep);
      setSpCertificate(keep);
    },
  });
  const error = save.error;
  return (
    <ResourceForm
      title="SAML 2.0"
      submitLabel="Save SAML settings"
      pending={save.isPending}
      error={error}
      fields={fields}
      onSubmit={() => save.mutate()}
    >
      <CheckField
        label="Sign-in through SAML enabled"
        checked={enabled}
        onChange={(e) => setEnabled(e.target.checked)}
        error={fieldError(error, "enabled")}
        hint="Shows “Sign in with SSO” on the sign-in page."
      />
      <div className="row">
        <TextField
          label="Identity provider entity id"
          value={entityId}
          onChange={(e) => setEntityId(e.target.value)}
          error={fieldError(error, "entityId")}
          hint="The issuer of the provider's answers (its metadata's entityID)."
        />
        <TextField
          label="Sign-on URL"
          type="url"
          value={signOnUrl}
          onChange={(e) => setSignOnUrl(e.target.value)}
          error={fieldError(error, "signOnUrl")}
          hint="The provider's single sign-on service (HTTP-Redirect)."
        />
      </div>
      <SecretField
        label="Identity provider certificate"
        isSet={Boolean(saved.certificate)}
        change={certificate}
        onChange={setCertificate}
        error={fieldError(error, "certificate")}
        hint="PEM or bare base64: the assertion's signature must verify against it."
      />
      <TextField
        label="Sign-out URL"
        type="url"
        value={signOutUrl}
        onChange={(e) => setSignOutUrl(e.target.value)}
        error={fieldError(error, "signOutUrl")}
        hint="With a service provider key below, signing out of Vexil signs out at the provider too."
      />
      <SecretField
        label="Service provider key and certificate"
        isSet={Boolean(saved.spCertificate)}
        change={spCertificate}
        onChange={setSpCertificate}
        error={fieldError(error, "spCertificate")}
        hint="Vexil's PEM private key (and its certificate, which the metadata then publishes); signs sign-out requests."
      />
      <CheckField
        label="Create accounts on first sign-in"
        checked={autoCreate}
        onChange={(e) => setAutoCreate(e.target.checked)}
        error={fieldError(error, "autoCreate")}
      />
      <div className="row">
        <TextField
          label="Email domains"
          value={emailDomains}
          onChange={(e) => setEmailDomains(e.target.value)}
          error={fieldError(error, "emailDomains")}
          hint="Comma-separated (example.com, example.org); empty: any domain."
        />
        <SelectField
          label="Root role of created accounts"
          value={defaultRootRoleId}
          onChange={(e) => setDefaultRootRoleId(Number(e.target.value))}
          error={fieldError(error, "defaultRootRoleId") ?? fieldError(error, "defaultRootRole")}
        >
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
      </div>
      <CheckField
        label="Sync groups at each sign-in"
        checked={enableGroupSyncing}
        onChange={(e) => setEnableGroupSyncing(e.target.checked)}
        error={fieldError(error, "enableGroupSyncing")}
        hint="Members of the groups that map the provider's groups: see Groups."
      />
      <TextField
        label="Group attribute path"
        value={groupJsonPath}
        onChange={(e) => setGroupJsonPath(e.target.value)}
        error={fieldError(error, "groupJsonPath")}
        hint="A dotted path into the assertion's attributes, for example groups."
      />
    </ResourceForm>
  );
}

/**
 * A stored certificate or key: says whether one is set, never what it is. Replacing shows an
 * empty box for the new one; removing drops it at the next save.
 */
function SecretField({
  label,
  isSet,
  change,
  onChange,
  error,
  hint,
}: {
  label: string;
  isSet: boolean;
  change: SecretChange;
  onChange: (change: SecretChange) => void;
  error?: string;
  hint: string;
}) {
  const id = useId();
  const state =
    change.kind === "remove" ? "removed when you save" : change.kind === "replace" ? "replaced when you save" : isSet ? "set" : "not set";
  return (
    <fieldset className="field" aria-describedby={`${id}-hint`}>
      <legend>{label}</legend>
      <p>
        <span className={isSet && change.kind === "keep" ? "badge on" : "badge"} id={`${id}-state`}>
          {state}
        </span>
      </p>
      <div className="hint" id={`${id}-hint`}>
        {hint}
      </div>
      {change.kind === "replace" ? (
        <TextAreaField
          label={`New ${label.toLowerCase()}`}
          rows={4}
          spellCheck={false}
          autoComplete="off"
          value={change.value}
          onChange={(e) => onChange({ kind: "replace", value: e.target.value })}
          error={error}
        />
      ) : (
        error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )
      )}
      <div className="actions">
        {change.kind === "keep" ? (
          <>
            <button type="button" onClick={() => onChange({ kind: "replace", value: "" })}>
              {isSet ? "Replace" : "Set"} {label.toLowerCase()}
            </button>
            {isSet && (
              <button type="button" className="danger" onClick={() => onChange({ kind: "remove" })}>
                Remove {label.toLowerCase()}
              </button>
            )}
          </>
        ) : (
          <button type="button" onClick={() => onChange(keep)}>
            {isSet ? "Keep the current one" : "Cancel"}
          </button>
        )}
      </div>
    </fieldset>
  );
}
