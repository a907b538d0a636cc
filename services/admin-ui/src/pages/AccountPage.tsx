import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ApiError, ok } from "../api.js";
import { AccountTokens, type TokenCalls } from "../components/AccountTokens.js";
import { ErrorNote, fieldError, TextField } from "../components/forms.js";
import { rememberDefaultPassword, useCurrentUser } from "../session.js";
import { keys } from "../query-keys.js";

/** Tokens that act as the signed-in person, from scripts. */
const personalTokens: TokenCalls = {
  queryKey: keys.personalTokens,
  list: () => ok(adminApi.users.listTokens()),
  create: (body) => ok(adminApi.users.createToken({ body })),
  remove: (id) => ok(adminApi.users.deleteToken({ params: { id } })),
};

export function AccountPage() {
  const me = useCurrentUser().data;
  if (!me) return null;
  return (
    <section>
      <h1>Your account</h1>
      <dl className="facts">
        <dt>Username</dt>
        <dd>{me.user.username ?? "—"}</dd>
        <dt>Email</dt>
        <dd>{me.user.email ?? "—"}</dd>
      </dl>
      {me.user.id !== undefined && <ChangePassword userId={me.user.id} />}
      {me.user.id !== undefined && <AccountTokens title="Personal access tokens" calls={personalTokens} />}
    </section>
  );
}

/** Any signed-in person changes their own password; this session stays, their other sessions end. */
function ChangePassword({ userId }: { userId: number }) {
  const [oldPassword, setOldPassword] = useState("");
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const change = useMutation({
    mutationFn: () => ok(adminApi.users.changeOwnPassword({ body: { oldPassword, password, confirmPassword } })),
    onSuccess: () => {
      setOldPassword("");
      setPassword("");
      setConfirmPassword("");
      // The first-start banner goes.
      rememberDefaultPassword(userId, false);
    },
  });
  const mismatch = confirmPassword !== "" && confirmPassword !== password ? "The passwords do not match" : undefined;
  // A wrong current password is a 401 without field details: it belongs next to that field.
  const wrongOld = change.error instanceof ApiError && change.error.name === "PasswordMismatch" ? change.error.message : undefined;
  const atField = ["oldPassword", "password", "confirmPassword"].some((field) => fieldError(change.error, field)) || wrongOld;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <form onSubmit={submit} className="card narrow" aria-labelledby="change-password-title">
      <h2 id="change-password-title">Change password</h2>
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={oldPassword}
        onChange={(e) => setOldPassword(e.target.value)}
        error={wrongOld ?? fieldError(change.error, "oldPassword")}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        hint="At least 10 characters with upper and lower case, a digit and a symbol."
        error={fieldError(change.error, "password")}
      />
      <TextField
        label="Repeat the new password"
        type="password"
        autoComplete="new-password"
        required
        value={confirmPassword}
        onChange={(e) => setConfirmPassword(e.target.value)}
        error={mismatch ?? fieldError(change.error, "confirmPassword")}
      />
      <button type="submit" className="primary" disabled={change.isPending}>
        Change password
      </button>
      {change.isSuccess && <p role="status">Password changed. Your other sessions were signed out.</p>}
      {!atField && <ErrorNote error={change.error} />}
    </form>
  );
}
