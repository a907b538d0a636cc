import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

/** A person the provider knows, signing in with `username` and `password`. */
export interface OidcUser {
  username: string;
  password: string;
  email: string;
  name: string;
  groups: string[];
}

export interface OidcProvider {
  /** The issuer, and where its discovery document is. */
  issuer: string;
  discoverUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * Signs `user` in at the provider outside any browser, from an authorization URL a client made,
   * and answers the URL the provider sends the browser back to (with the code and state), unvisited.
   */
  answerFor(authorizationUrl: string, user: OidcUser): Promise<string>;
  /** Changes a person's groups; the next sign-in reports the new ones. */
  setGroups(username: string, groups: string[]): void;
  /**
   * A second discovery document for the same provider whose token endpoint passes through here,
   * rewriting the ID token's claims with `tamper` and signing it again (with the provider's own key,
   * or `withKey`): answers a genuine signature does not vouch for, which the client must refuse.
   */
  tampering: { discoverUrl: string; tamper: ((claims: JWTPayload) => JWTPayload) | undefined; withKey: CryptoKey | undefined };
  stop(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The provider's sign-in form; the dev interactions of oidc-provider take any password, this one checks it. */
const signInForm = (uid: string, error?: string) =>
  `<!doctype html><html><head><title>Test provider sign-in</title></head><body><h1>Test provider</h1>` +
  (error ? `<p role="alert">${escape(error)}</p>` : "") +
  `<form method="post" action="/interaction/${escape(uid)}/login">` +
  `<label>Username <input name="username" autocomplete="username"></label>` +
  `<label>Password <input name="password" type="password"></label>` +
  `<button type="submit">Sign in</button></form></body></html>`;

async function formBody(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * `oidc-provider` (a certified OpenID Provider) on a free port, with one confidential client for
 * Vexil (authorization code, PKCE required, RP-initiated logout back to `postLogoutRedirectUri`),
 * the given people with their email, name and a `groups` claim (`groups` scope), and consent given
 * on the client's behalf (a first-party client).
 */
export async function startOidcProvider({
  redirectUri,
  postLogoutRedirectUri,
  users,
}: {
  redirectUri: string;
  postLogoutRedirectUri: string;
  users: OidcUser[];
}): Promise<OidcProvider> {
  const people = new Map(users.map((user) => [user.username, { ...user, groups: [...user.groups] }]));
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const clientId = "vexil";
  const clientSecret = randomBytes(24).toString("base64url");

  const server = http.createServer();
  const issuer = await listen(server);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        post_logout_redirect_uris: [postLogoutRedirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    pkce: { required: () => true },
    claims: { email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const person = people.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: person.email, email_verified: true, name: person.name, groups: person.groups }),
      };
    },
    // Vexil is a first-party client: what it asks for is granted without a consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { client, session, provider: op } = ctx.oidc;
      const grantId = session?.grantIdFor(client!.clientId);
      if (grantId) return op.Grant.find(grantId);
      const grant = new op.Grant({ clientId: client!.clientId, accountId: session!.accountId! });
      grant.addOIDCScope("openid email profile groups");
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();

  server.on("request", (req, res) => {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url ?? "");
    if (!match) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html" }).end(signInForm(details.uid));
        return;
      }
      const form = await formBody(req);
      const person = people.get(form.get("username") ?? "");
      if (!person || person.password !== form.get("password")) {
        res.writeHead(200, { "content-type": "text/html" }).end(signInForm(details.uid, "Wrong username or password."));
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: person.username } }, { mergeWithLastSubmission: false });
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });

  // The tampering relay: the provider's discovery document, with the token endpoint passing through here.
  const relay = http.createServer();
  const relayUrl = await listen(relay);
  const tampering: OidcProvider["tampering"] = {
    discoverUrl: `${relayUrl}/.well-known/openid-configuration`,
    tamper: undefined,
    withKey: undefined,
  };
  relay.on("request", (req, res) => {
    void (async () => {
      if (req.url === "/.well-known/openid-configuration") {
        const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ ...metadata, token_endpoint: `${relayUrl}/token` }));
        return;
      }
      const answer = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": req.headers["content-type"]!, authorization: req.headers.authorization ?? "" },
        body: (await formBody(req)).toString(),
      });
      const tokens = (await answer.json()) as Record<string, unknown>;
      if (tampering.tamper && typeof tokens.id_token === "string") {
        tokens.id_token = await new SignJWT(tampering.tamper(decodeJwt(tokens.id_token)))
          .setProtectedHeader({ alg: "RS256", kid: signingKey.kid, typ: "JWT" })
          .sign(tampering.withKey ?? privateKey);
      }
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(tokens));
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });

  return {
    issuer,
    discoverUrl: `${issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    async answerFor(authorizationUrl, user) {
      const cookies = new Map<string, string>();
      const send = async (url: string, init: RequestInit = {}) => {
        const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
        const res = await fetch(new URL(url, issuer), { ...init, redirect: "manual", headers: { ...init.headers, cookie } });
        for (const set of res.headers.getSetCookie()) {
          const pair = set.split(";")[0]!;
          cookies.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
        }
        return res;
      };
      const uid = /\/interaction\/([\w-]+)/.exec((await send(authorizationUrl)).headers.get("location") ?? "")?.[1];
      let res = await send(`/interaction/${uid}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: user.username, password: user.password }).toString(),
      });
      for (let location = res.headers.get("location"); location; location = res.headers.get("location")) {
        const next = new URL(location, issuer);
        if (next.origin !== issuer) return next.href;
        res = await send(next.href);
      }
      throw new Error(`the provider did not send ${user.username} back to the client (${res.status})`);
    },
    setGroups(username, groups) {
      people.get(username)!.groups = groups;
    },
    tampering,
    async stop() {
      for (const s of [server, relay]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}
