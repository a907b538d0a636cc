import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { authApi, ok } from "../api.js";
import { ErrorNote, TextField } from "../components/forms.js";
import { projectsQuery } from "../queries.js";
import { keys } from "../query-keys.js";
import { rememberDefaultPassword, takeSignInNotice } from "../session.js";

export function SignInPage() {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [notice] = useState(takeSignInNotice);
  // Single sign-on providers start at their own path and come back to the page the person wanted.
  const options = useQuery({ queryKey: ["sign-in-options"], queryFn: () => ok(authApi.options()) });
  const back = encodeURIComponent(window.location.pathname === "/login" ? "/" : window.location.pathname + window.location.search);
  const signIn = useMutation({
    mutationFn: () => ok(authApi.login({ body: { username, password } })),
    onSuccess: async (user) => {
      rememberDefaultPassword(user.id, user.usesDefaultPassword);
      // Who we are and the first screen's projects are read side by side, not one after the other.
      void queryClient.prefetchQuery(projectsQuery);
      await queryClient.invalidateQueries({ queryKey: keys.currentUser });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const passwordOff = options.data?.passwordSignIn === false;
  const passwordFields = (
    <>
      <TextField
        label="Username or email"
        name="username"
        autoComplete="username"
        required
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <button type="submit" className="primary" disabled={signIn.isPending}>
        Sign in
      </button>
    </>
  );
  return (
    <main className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title" className="card">
        <h1 id="sign-in-title">Sign in to Vexil</h1>
        {notice && (
          <p className="banner" role="status">
            {notice}
          </p>
        )}
        {options.data?.providers.map((provider) => (
          <a key={provider.type} className="button primary" href={`${provider.path}?redirect=${back}`}>
            {provider.type === "saml" ? `Sign in with SSO (${provider.name})` : `Sign in with ${provider.name}`}
          </a>
        ))}
        {passwordOff ? (
          // The built-in admin's way in when single sign-on fails (the server's break-glass setting).
          <details>
            <summary>Sign in as the built-in administrator</summary>
            <p className="hint">Password sign-in is turned off; only the built-in admin may use it, when the server allows.</p>
            {passwordFields}
          </details>
        ) : (
          passwordFields
        )}
        <ErrorNote error={signIn.error} />
        {!passwordOff && (
          <p className="hint">
            First start? Sign in as <code>admin</code> with the password the server printed on its console when it first started, then
            change it.
          </p>
        )}
      </form>
    </main>
  );
}
