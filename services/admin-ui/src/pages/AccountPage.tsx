import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adminApi, ok } from "../api.js";
import { ErrorNote, fieldError, TextField } from "../components/forms.js";
import { PersonalTokens } from "./PersonalTokens.js";
import { currentUserKey, rememberDefaultPassword, setSignInNotice, useCurrentUser } from "../session.js";

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
      {me.user.id !== undefined && <PersonalTokens />}
    </section>
  );
}

function ChangePassword({ userId }: { userId: number }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const change = useMutation({
    mutationFn: () => ok(adminApi.users.changePassword({ params: { id: userId }, body: { password } })),
    onSuccess: async () => {
      rememberDefaultPassword(userId, false);
      // The API ends every session of the user, this one included: sign in again with the new password.
      setSignInNotice("Password changed. Sign in with the new password.");
      await queryClient.invalidateQueries({ queryKey: currentUserKey });
    },
  });
  const mismatch = confirmation !== "" && confirmation !== password ? "The passwords differ" : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <form onSubmit={submit} className="card narrow" aria-labelledby="change-password-title">
      <h2 id="change-password-title">Change password</h2>
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
        value={confirmation}
        onChange={(e) => setConfirmation(e.target.value)}
        error={mismatch}
      />
      <button type="submit" className="primary" disabled={change.isPending}>
        Change password
      </button>
      {!fieldError(change.error, "password") && <ErrorNote error={change.error} />}
    </form>
  );
}
