import { generateKeyPair } from "jose";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { startOidcProvider, type OidcProvider, type OidcUser } from "../src/oidc-provider.js";
import { eventsOf, passwordSessionCookie, paymentsGroupAccess, sessionCookie, toggleFlag } from "../src/sso-journeys.js";

const users = {
  ann: { username: "ann", password: "ann-pass-1", email: "ann@example.com", name: "Ann Example", groups: ["payments-engineers"] },
  bob: { username: "bob", password: "bob-pass-1", email: "bob@elsewhere.org", name: "Bob Elsewhere", groups: [] },
  carol: { username: "carol", password: "carol-pass-1", email: "carol@example.com", name: "Carol Example", groups: [] },
} satisfies Record<string, OidcUser>;
const builtInAdmin = { username: "admin", password: "Break-glass-9!" };

/**
 * OpenID Connect sign-in through a real provider (oidc-provider) in Chromium: from the sign-in page,
 * auto-creation, a refused domain, access through a provider group mapped to a project role,
 * sign-out at the provider too; answers that must be refused (wrong state, a replayed answer, ID
 * tokens with the wrong audience, issuer, nonce or signature); password sign-in turned off, with
 * the built-in admin's break-glass.
 */
describe.skipIf(!chromiumAvailable)("OIDC sign-in", () => {
  let vexil: TestSystem;
  let provider: OidcProvider;
  let browser: Browser;
  let groupId: number;
  const settings = () => ({
    enabled: true,
    discoverUrl: provider.discoverUrl,
    clientId: provider.clientId,
    secret: provider.clientSecret,
    autoCreate: true,
    emailDomains: "example.com",
    defaultRootRole: "Viewer",
    enableSingleSignOut: true,
    addGroupsScope: true,
    enableGroupSyncing: true,
    groupJsonPath: "groups",
  });

  beforeAll(async () => {
    vexil = await startTestSystem({
      env: { PASSWORD_SIGN_IN_BREAK_GLASS: "true", INIT_ADMIN_USERNAME: builtInAdmin.username, INIT_ADMIN_PASSWORD: builtInAdmin.password },
    });
    provider = await startOidcProvider({
      redirectUri: `${vexil.url}/auth/oidc/callback`,
      postLogoutRedirectUri: `${vexil.url}/login`,
      users: Object.values(users),
    });
    browser = await launchChromium();
    // Settings saved while running take effect without a restart.
    await vexil.expectStatus("/api/admin/auth/oidc/settings", { method: "POST", body: settings() }, 200);
    groupId = await paymentsGroupAccess(vexil, "payments-engineers");
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await provider?.stop();
    await vexil?.stop();
  });

  const atProvider = (url: URL) => url.origin === provider.issuer;
  const atVexil = (url: URL) => url.origin === vexil.url;
  /** Signs in at the provider from where `start` leads (the sign-in page's button, or a URL); answers the page where it ended. */
  async function signInAtProvider(page: Page, user: OidcUser, start: () => Promise<unknown>) {
    await start();
    await page.waitForURL(atProvider);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    return page;
  }
  async function signInThroughProvider(context: BrowserContext, user: OidcUser, wanted = "/projects/payments") {
    const page = await context.newPage();
    screenshotOnFailure(page, `oidc-${user.username}`);
    await signInAtProvider(page, user, async () => {
      await page.goto(`${vexil.url}${wanted}`);
      await page.getByRole("link", { name: "Sign in with OpenID Connect" }).click();
    });
    await page.waitForURL((url) => atVexil(url) && url.pathname === wanted, { timeout: 30_000 });
    return page;
  }
  /** A sign-in started at Vexil's start URL whose answer Vexil refuses: the refusal page's response. */
  async function refusedSignIn(context: BrowserContext, user: OidcUser) {
    const page = await context.newPage();
    screenshotOnFailure(page, `oidc-refused-${user.username}`);
    const answered = page.waitForResponse((res) => res.url().startsWith(`${vexil.url}/auth/oidc/callback`), { timeout: 30_000 });
    await signInAtProvider(page, user, () => page.goto(`${vexil.url}/auth/oidc/login?redirect=/`));
    const response = await answered;
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    return { page, status: response.status(), message: await page.getByRole("status").innerText() };
  }
  const userEmails = async () =>
    ((await vexil.expectStatus("/api/admin/user-admin", undefined, 200)).users as { email?: string }[]).map((u) => u.email);

  it("tells the sign-in page what is enabled and never answers the client secret", async () => {
    expect(await vexil.expectStatus("/auth/options", { token: null }, 200)).toEqual({
      passwordSignIn: true,
      providers: [{ type: "oidc", name: "OpenID Connect", path: "/auth/oidc/login" }],
    });
    const { secret: _secret, ...answered } = settings();
    expect(await vexil.expectStatus("/api/admin/auth/oidc/settings", undefined, 200)).toEqual(answered);
    const events = JSON.stringify(await vexil.expectStatus("/api/admin/events?limit=1000", undefined, 200));
    expect(events).toContain('"hasSecret":true');
    expect(events).not.toContain(provider.clientSecret);
    // Enabling needs the provider's address, the client id and a secret; a plain-HTTP provider elsewhere is refused.
    await vexil.expectError(
      "/api/admin/auth/oidc/settings",
      { method: "POST", body: { enabled: true, clientId: "x" } },
      400,
      "ValidationError",
    );
    await vexil.expectError(
      "/api/admin/auth/oidc/settings",
      { method: "POST", body: { ...settings(), discoverUrl: "http://idp.example.com/.well-known/openid-configuration" } },
      400,
      "ValidationError",
    );
    await vexil.expectError(
      "/api/admin/auth/oidc/settings",
      { method: "POST", token: null, body: settings() },
      401,
      "AuthenticationRequired",
    );
  });

  it("signs a new person in, creates them with the default role and lets their group's project role count", async () => {
    const context = await browser.newContext();
    const page = await signInThroughProvider(context, users.ann);
    const cookie = (await sessionCookie(vexil, page))!;
    const me = await vexil.expectStatus("/api/admin/user", { token: null, headers: { cookie } }, 200);
    expect(me.user).toMatchObject({ email: "ann@example.com", name: "Ann Example", rootRole: 3 });
    // Through the group: may change a flag in payments, not in default.
    expect((await toggleFlag(vexil, "payments", cookie)).status).toBe(200);
    expect((await toggleFlag(vexil, "default", cookie)).status).toBe(403);

    expect((await eventsOf(vexil, "user-created")).map((e) => e.data.email)).toContain("ann@example.com");
    expect((await eventsOf(vexil, "sso-sign-in")).map((e) => e.data)).toContainEqual({
      provider: "oidc",
      userId: me.user.id,
      email: "ann@example.com",
    });
    expect((await eventsOf(vexil, "group-user-added")).map((e) => e.data)).toContainEqual({
      groupId,
      groupName: "payments-editors",
      userId: me.user.id,
      source: "oidc",
    });
    // No event carries a token or the client secret.
    const events = JSON.stringify(await vexil.expectStatus("/api/admin/events?limit=1000", undefined, 200));
    expect(events).not.toMatch(/eyJ[\w-]+\.eyJ|id_token|access_token/);
    expect(events).not.toContain(provider.clientSecret);

    // The provider drops Ann from the group: at her next sign-in she leaves the Vexil group, and her open session loses the access too.
    provider.setGroups("ann", []);
    const again = await browser.newContext();
    const second = await signInThroughProvider(again, users.ann);
    expect((await toggleFlag(vexil, "payments", (await sessionCookie(vexil, second))!)).status).toBe(403);
    expect((await toggleFlag(vexil, "payments", cookie)).status).toBe(403);
    expect((await eventsOf(vexil, "group-user-removed")).map((e) => e.data)).toContainEqual({
      groupId,
      groupName: "payments-editors",
      userId: me.user.id,
      source: "oidc",
    });
    provider.setGroups("ann", users.ann.groups);
    await context.close();
    await again.close();
  }, 120_000);

  it("refuses a person whose email domain is not allowed, with a page saying why, creating nothing", async () => {
    const context = await browser.newContext();
    const { page, status, message } = await refusedSignIn(context, users.bob);
    expect(status).toBe(403);
    expect(message).toContain("elsewhere.org");
    expect(await sessionCookie(vexil, page)).toBeUndefined();
    expect(await userEmails()).not.toContain("bob@elsewhere.org");
    expect((await eventsOf(vexil, "sso-sign-in-refused")).map((e) => e.data)).toContainEqual({
      provider: "oidc",
      reason: "domain-not-allowed",
      email: "bob@elsewhere.org",
    });
    await context.close();
  }, 60_000);

  it("signs out of Vexil and of the provider", async () => {
    const context = await browser.newContext();
    const page = await signInThroughProvider(context, users.ann, "/");
    const cookie = (await sessionCookie(vexil, page))!;
    await page.getByRole("button", { name: "Sign out" }).click();
    // The provider asks before ending its session.
    await page.waitForURL(atProvider, { timeout: 30_000 });
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.waitForURL(`${vexil.url}/login`, { timeout: 30_000 });
    expect((await vexil.api("/api/admin/user", { token: null, headers: { cookie } })).status).toBe(401);
    // The provider's session ended too: signing in again asks for the password.
    await page.goto(`${vexil.url}/auth/oidc/login`);
    await page.getByLabel("Password").waitFor();
    await context.close();
  }, 60_000);

  it("refuses a wrong state, a replayed answer and ID tokens with the wrong audience, issuer, nonce or signature, creating nothing", async () => {
    const emailsBefore = await userEmails();
    const refusalsBefore = (await eventsOf(vexil, "sso-sign-in-refused")).length;
    const expectedReasons: string[] = [];

    // A replayed answer: the same callback again, in the browser that signed in with it.
    const replaying = await browser.newContext();
    const replayPage = await replaying.newPage();
    const callback = replayPage.waitForRequest((req) => req.url().startsWith(`${vexil.url}/auth/oidc/callback`), { timeout: 30_000 });
    await signInAtProvider(replayPage, users.ann, () => replayPage.goto(`${vexil.url}/auth/oidc/login?redirect=/`));
    const callbackUrl = (await callback).url();
    await replayPage.waitForURL((url) => atVexil(url) && url.pathname === "/");
    const replayed = await replayPage.goto(callbackUrl);
    expect(replayed!.status()).toBe(400);
    expect(await replayPage.getByRole("status").innerText()).toContain("already used");
    expectedReasons.push("unknown-state");
    await replaying.close();

    // A wrong state: an answer for a sign-in someone else started, opened in this browser (login cross-site request forgery).
    const started = await vexil.api("/auth/oidc/login?redirect=/", { token: null, redirect: "manual" });
    const forged = await provider.answerFor(started.headers.get("location")!, users.carol);
    const victim = await browser.newContext();
    const victimPage = await victim.newPage();
    expect((await victimPage.goto(forged))!.status()).toBe(400);
    expect(await victimPage.getByRole("status").innerText()).toContain("another browser");
    expect(await sessionCookie(vexil, victimPage)).toBeUndefined();
    expectedReasons.push("state-mismatch");
    // A state this server never issued.
    const unknown = await vexil.api(`/auth/oidc/callback?code=made-up&state=made-up`, { token: null });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("Sign-in refused");
    expectedReasons.push("unknown-state");
    await victim.close();

    // ID tokens rewritten between the provider and Vexil, signed again with the provider's key (or another).
    await vexil.expectStatus(
      "/api/admin/auth/oidc/settings",
      // The secret left out: the stored one is kept.
      { method: "POST", body: { ...settings(), secret: undefined, discoverUrl: provider.tampering.discoverUrl } },
      200,
    );
    const { privateKey: otherKey } = await generateKeyPair("RS256");
    const tampered: Array<[string, () => void]> = [
      ["wrong audience", () => (provider.tampering.tamper = (claims) => ({ ...claims, aud: "another-client" }))],
      ["wrong issuer", () => (provider.tampering.tamper = (claims) => ({ ...claims, iss: "https://another-issuer.example" }))],
      ["wrong nonce", () => (provider.tampering.tamper = (claims) => ({ ...claims, nonce: "not-the-one-sent" }))],
      [
        "bad signature",
        () => {
          provider.tampering.tamper = (claims) => claims;
          provider.tampering.withKey = otherKey;
        },
      ],
    ];
    try {
      for (const [name, tamper] of tampered) {
        tamper();
        const context = await browser.newContext();
        const { page, status, message } = await refusedSignIn(context, users.carol);
        expect(status, `${name}: ${message}`).toBe(400);
        expect(message, name).toContain("answer was refused");
        expect(await sessionCookie(vexil, page), name).toBeUndefined();
        expectedReasons.push("invalid-response");
        await context.close();
      }
      // The control: the same path, untouched, signs in.
      provider.tampering.tamper = undefined;
      provider.tampering.withKey = undefined;
      const control = await browser.newContext();
      await signInThroughProvider(control, users.ann, "/");
      await control.close();
    } finally {
      provider.tampering.tamper = undefined;
      provider.tampering.withKey = undefined;
      await vexil.expectStatus("/api/admin/auth/oidc/settings", { method: "POST", body: settings() }, 200);
    }

    expect(await userEmails()).toEqual(emailsBefore);
    const allRefusals = await eventsOf(vexil, "sso-sign-in-refused");
    const refusals = allRefusals.slice(0, allRefusals.length - refusalsBefore);
    expect(refusals.map((e) => e.data.reason).sort()).toEqual(expectedReasons.sort());
    expect(JSON.stringify(refusals)).not.toMatch(/eyJ|made-up|code=/);
  }, 180_000);

  it("turns password sign-in off only with single sign-on on, leaving the built-in admin a break-glass", async () => {
    const simple = "/api/admin/auth/simple/settings";
    expect(await vexil.expectStatus(simple, undefined, 200)).toEqual({ disabled: false });
    const peopleCookie = await passwordSessionCookie(vexil, "pat");
    // With no single sign-on enabled it cannot be turned off; the OIDC secret stays stored meanwhile.
    await vexil.expectStatus(
      "/api/admin/auth/oidc/settings",
      { method: "POST", body: { ...settings(), enabled: false, secret: undefined } },
      200,
    );
    await vexil.expectError(simple, { method: "POST", body: { disabled: true } }, 400, "ValidationError");
    await vexil.expectStatus("/api/admin/auth/oidc/settings", { method: "POST", body: { ...settings(), secret: undefined } }, 200);
    const viewer = await vexil.createPerson({ username: "vic", rootRole: "Viewer" });
    await vexil.expectError(simple, { method: "POST", token: viewer.token, body: { disabled: true } }, 403, "NoAccessError");

    expect(await vexil.expectStatus(simple, { method: "POST", body: { disabled: true } }, 200)).toEqual({ disabled: true });
    try {
      expect((await vexil.expectStatus("/auth/options", { token: null }, 200)).passwordSignIn).toBe(false);
      const refused = await vexil.expectError(
        "/auth/simple/login",
        { method: "POST", token: null, body: { username: "pat", password: "Str0ng-enough!" } },
        403,
        "NoAccessError",
      );
      expect(refused.message).toContain("Password sign-in is turned off");
      // Sessions and tokens already given keep working; single sign-on still signs in.
      expect((await vexil.api("/api/admin/user", { token: null, headers: { cookie: peopleCookie } })).status).toBe(200);
      const context = await browser.newContext();
      await signInThroughProvider(context, users.ann, "/");
      await context.close();

      // The sign-in page offers single sign-on, the password form only folded away for the built-in admin.
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${vexil.url}/login`);
      await page.getByRole("link", { name: "Sign in with OpenID Connect" }).waitFor();
      expect(await page.getByLabel("Password").isVisible()).toBe(false);
      // The break-glass (PASSWORD_SIGN_IN_BREAK_GLASS=true): the built-in admin signs in with the password, on record.
      await page.getByText("Sign in as the built-in administrator").click();
      await page.getByLabel("Username or email").fill(builtInAdmin.username);
      await page.getByLabel("Password").fill(builtInAdmin.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 30_000 });
      const me = await vexil.expectStatus(
        "/api/admin/user",
        { token: null, headers: { cookie: (await sessionCookie(vexil, page))! } },
        200,
      );
      expect(me.user).toMatchObject({ username: builtInAdmin.username, rootRole: 1 });
      expect((await eventsOf(vexil, "password-sign-in-break-glass")).map((e) => e.data)).toContainEqual({
        userId: me.user.id,
        username: builtInAdmin.username,
      });
      await page.context().close();
    } finally {
      await vexil.expectStatus(simple, { method: "POST", body: { disabled: false } }, 200);
    }
    expect((await vexil.expectStatus("/auth/options", { token: null }, 200)).passwordSignIn).toBe(true);
    expect((await eventsOf(vexil, "setting-updated")).map((e) => e.data)).toContainEqual({ id: "simple", disabled: false });
  }, 120_000);
});
