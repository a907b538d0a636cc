import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { assertionXml, requestIdOf, responseXml, signAssertion, type AnswerFields } from "../src/saml-answers.js";
import {
  selfSignedPair,
  signInThroughIdp,
  simpleSamlPhpAvailable,
  startSimpleSamlPhp,
  type IdpUser,
  type SimpleSamlPhp,
} from "../src/simplesamlphp.js";
import {
  eventsOf as eventsIn,
  passwordSessionCookie,
  paymentsGroupAccess,
  sessionCookie as cookieIn,
  toggleFlag,
} from "../src/sso-journeys.js";

const idpHost = "idp.test";
const users: IdpUser[] = [
  { username: "ann", password: "ann-pass-1", email: "ann@example.com", name: "Ann Example", groups: ["payments-engineers"] },
  { username: "bob", password: "bob-pass-1", email: "bob@elsewhere.org", name: "Bob Elsewhere", groups: ["payments-engineers"] },
];

/**
 * SAML sign-in through a real identity provider (SimpleSAMLphp) in Chromium: SP-initiated from the
 * sign-in page, auto-creation, a refused domain, access through an IdP group mapped to a project
 * role (lost at the next sign-in without the group, open sessions included), single logout.
 */
describe.skipIf(!chromiumAvailable || !simpleSamlPhpAvailable)("SAML sign-in", () => {
  let vexil: TestSystem;
  let idp: SimpleSamlPhp;
  let browser: Browser;
  let keys: string;
  let groupId: number;

  beforeAll(async () => {
    keys = await mkdtemp(path.join(tmpdir(), "vexil-sp-keys-"));
    vexil = await startTestSystem();
    const sp = await selfSignedPair(keys, "sp", "vexil");
    idp = await startSimpleSamlPhp({
      host: idpHost,
      sp: {
        entityId: vexil.url,
        acsUrl: `${vexil.url}/auth/saml/callback`,
        sloUrl: `${vexil.url}/auth/saml/logout/callback`,
        certificate: sp.cert,
      },
      users,
    });
    browser = await launchChromium([`--host-resolver-rules=MAP ${idpHost} 127.0.0.1`]);
    // Settings saved while running take effect without a restart.
    await vexil.expectStatus(
      "/api/admin/auth/saml/settings",
      {
        method: "POST",
        body: {
          enabled: true,
          entityId: idp.entityId,
          signOnUrl: idp.signOnUrl,
          certificate: idp.certificate,
          signOutUrl: idp.signOutUrl,
          spCertificate: sp.key + sp.cert,
          autoCreate: true,
          emailDomains: "example.com",
          defaultRootRole: "Viewer",
          enableGroupSyncing: true,
          groupJsonPath: "groups",
        },
      },
      200,
    );
    groupId = await paymentsGroupAccess(vexil, "payments-engineers");
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await vexil?.stop();
    await rm(keys, { recursive: true, force: true });
  });

  const signIn = (page: Page, user: IdpUser, wanted = "/projects/payments") => signInThroughIdp(page, vexil.url, idpHost, user, wanted);
  const sessionCookie = (page: Page) => cookieIn(vexil, page);
  const eventsOf = (type: string) => eventsIn(vexil, type);
  const loginCookie = () => passwordSessionCookie(vexil, "saml-admin");
  const toggle = (project: string, cookie: string) => toggleFlag(vexil, project, cookie);

  it("tells the sign-in page what is enabled and publishes the service provider's metadata", async () => {
    expect(await vexil.expectStatus("/auth/options", { token: null }, 200)).toEqual({
      passwordSignIn: true,
      providers: [{ type: "saml", name: "SAML 2.0", path: "/auth/saml/login" }],
    });
    const metadata = await (await vexil.api("/auth/saml/metadata", { token: null })).text();
    expect(metadata).toContain(`entityID="${vexil.url}"`);
    expect(metadata).toContain(`Location="${vexil.url}/auth/saml/callback"`);
  });

  it("signs a new person in through the IdP, creates them with the default role and lets their group's project role count", async () => {
    const context = await browser.newContext();
    const page = await signIn(await context.newPage(), users[0]!);
    expect(new URL(page.url()).pathname).toBe("/projects/payments");
    const cookie = (await sessionCookie(page))!;
    const me = await vexil.expectStatus("/api/admin/user", { token: null, headers: { cookie } }, 200);
    expect(me.user).toMatchObject({ email: "ann@example.com", rootRole: 3 });
    // Through the group: may change a flag in payments, not in default.
    expect((await toggle("payments", cookie)).status).toBe(200);
    expect((await toggle("default", cookie)).status).toBe(403);

    const created = await eventsOf("user-created");
    expect(created.map((e) => (e.data as { email?: string }).email)).toContain("ann@example.com");
    expect((await eventsOf("sso-sign-in")).map((e) => e.data)).toContainEqual({
      provider: "saml",
      userId: me.user.id,
      email: "ann@example.com",
    });
    expect((await eventsOf("group-user-added")).map((e) => e.data)).toContainEqual({
      groupId,
      groupName: "payments-editors",
      userId: me.user.id,
      source: "saml",
    });
    const group = await vexil.expectStatus(`/api/admin/groups/${groupId}`, undefined, 200);
    expect(group.users.map((u: { user: { id: number } }) => u.user.id)).toEqual([me.user.id]);
    // No event carries the assertion.
    expect(JSON.stringify(await vexil.expectStatus("/api/admin/events?limit=1000", undefined, 200))).not.toMatch(
      /SAMLResponse|BEGIN CERTIFICATE|Assertion/,
    );

    // The IdP drops Ann from the group: at her next sign-in she leaves the Vexil group, and her other open session loses the access too.
    await context.close();
    await setIdpGroups(idp, "ann", []);
    const again = await browser.newContext();
    const second = await signIn(await again.newPage(), users[0]!);
    expect((await toggle("payments", (await sessionCookie(second))!)).status).toBe(403);
    expect((await toggle("payments", cookie)).status).toBe(403);
    expect((await eventsOf("group-user-removed")).map((e) => e.data)).toContainEqual({
      groupId,
      groupName: "payments-editors",
      userId: me.user.id,
      source: "saml",
    });
    await again.close();
    await setIdpGroups(idp, "ann", ["payments-engineers"]);
  }, 120_000);

  it("refuses a person whose email domain is not allowed, with a page saying why, creating nothing", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const answered = page.waitForResponse((res) => res.url() === `${vexil.url}/auth/saml/callback`);
    await page.goto(`${vexil.url}/auth/saml/login`);
    await page.locator("input[name=username]").fill("bob");
    await page.locator("input[name=password]").fill("bob-pass-1");
    await page.locator("#submit_button").click();
    expect((await answered).status()).toBe(403);
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    expect(await page.getByRole("status").innerText()).toContain("elsewhere.org");
    expect(await sessionCookie(page)).toBeUndefined();
    const people = await vexil.expectStatus("/api/admin/user-admin", undefined, 200);
    expect(JSON.stringify(people)).not.toContain("bob@elsewhere.org");
    expect((await eventsOf("sso-sign-in-refused")).map((e) => e.data)).toContainEqual({
      provider: "saml",
      reason: "domain-not-allowed",
      email: "bob@elsewhere.org",
    });
    await context.close();
  }, 60_000);

  it("signs out of Vexil and of the IdP (single logout)", async () => {
    const context = await browser.newContext();
    const page = await signIn(await context.newPage(), users[0]!, "/");
    const cookie = (await sessionCookie(page))!;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${vexil.url}/login`, { timeout: 30_000 });
    expect((await vexil.api("/api/admin/user", { token: null, headers: { cookie } })).status).toBe(401);
    // The IdP's session ended too: signing in again asks for the password.
    await page.goto(`${vexil.url}/auth/saml/login`);
    await page.locator("input[name=password]").waitFor();
    await context.close();
  }, 60_000);

  it("refuses forged, wrong-audience, expired, replayed, unsigned and wrapped answers with a page and an event, creating nothing", async () => {
    const acsUrl = `${vexil.url}/auth/saml/callback`;
    const idpKey = { privateKey: idp.privateKey, certificate: idp.certificate };
    // Posted as the IdP's page posts it: a cross-site urlencoded form, here with a session cookie of the browser's along,
    // and the cookie that binds the latest sign-in this "browser" started to it.
    const { key: otherKey, cert: otherCert } = await selfSignedPair(keys, "forger", idpHost);
    const browserCookie = await loginCookie();
    let bindingCookie = "";
    /** Starts a sign-in as a browser would and answers the fields of a reply to it. */
    const started = async (email: string): Promise<AnswerFields> => {
      const res = await vexil.api("/auth/saml/login?redirect=/", { token: null, redirect: "manual" });
      expect(res.status).toBe(302);
      bindingCookie = res.headers.get("set-cookie")!.split(";")[0]!;
      return { issuer: idp.entityId, acsUrl, audience: vexil.url, inResponseTo: requestIdOf(res.headers.get("location")!), email };
    };
    const post = (xml: string) =>
      vexil.api("/auth/saml/callback", {
        method: "POST",
        token: null,
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: idp.url, cookie: `${browserCookie}; ${bindingCookie}` },
        body: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString("base64"), RelayState: "/projects/payments" }).toString(),
      });

    // The control: an answer crafted this way and signed with the IdP's key is accepted.
    const control = await started("dave@example.com");
    const accepted = responseXml(control, signAssertion(assertionXml(control), idpKey));
    const ok = await post(accepted);
    expect(ok.status, await ok.clone().text()).toBe(303);
    expect(ok.headers.get("location")).toBe("/projects/payments");
    expect(ok.headers.get("set-cookie")).toMatch(/vexil-session=/);

    const usersBefore = JSON.stringify((await vexil.expectStatus("/api/admin/user-admin", undefined, 200)).users);
    const refusalsBefore = (await eventsOf("sso-sign-in-refused")).length;
    const wrapped = async () => {
      const fields = await started("erin@example.com");
      const genuine = signAssertion(assertionXml(fields), idpKey);
      // Signature wrapping: a forged assertion for mallory first, the genuinely signed one hidden after it.
      return responseXml(fields, assertionXml({ ...fields, email: "mallory@example.com" }) + genuine);
    };
    const cases: Array<[string, () => Promise<string>]> = [
      ["replayed", async () => accepted],
      [
        "bad signature",
        async () => {
          const f = await started("frank@example.com");
          return responseXml(f, signAssertion(assertionXml(f), { privateKey: otherKey, certificate: otherCert }));
        },
      ],
      [
        "wrong audience",
        async () => {
          const f = await started("gina@example.com");
          return responseXml(f, signAssertion(assertionXml({ ...f, audience: "https://another-service.example" }), idpKey));
        },
      ],
      [
        "expired",
        async () => {
          const f = await started("hal@example.com");
          const past = { notBefore: new Date(Date.now() - 3_600_000), notOnOrAfter: new Date(Date.now() - 1_800_000) };
          return responseXml(f, signAssertion(assertionXml({ ...f, ...past }), idpKey));
        },
      ],
      [
        "unsigned",
        async () => {
          const f = await started("ivy@example.com");
          return responseXml(f, assertionXml(f));
        },
      ],
      [
        "tampered after signing",
        async () => {
          const f = await started("jo@example.com");
          return responseXml(
            f,
            signAssertion(assertionXml(f), idpKey).replace("jo@example.com</saml:NameID>", "mallory@example.com</saml:NameID>"),
          );
        },
      ],
      ["signature wrapping", wrapped],
    ];
    for (const [name, make] of cases) {
      const res = await post(await make());
      const page = await res.text();
      expect(res.status, `${name}: ${page}`).toBe(400);
      expect(page, name).toContain("Sign-in refused");
      expect(res.headers.get("set-cookie"), name).not.toMatch(/vexil-session=/);
    }
    expect(JSON.stringify((await vexil.expectStatus("/api/admin/user-admin", undefined, 200)).users)).toBe(usersBefore);
    const refusals = (await eventsOf("sso-sign-in-refused")).slice(0, (await eventsOf("sso-sign-in-refused")).length - refusalsBefore);
    expect(refusals).toHaveLength(cases.length);
    for (const refusal of refusals) expect(["invalid-response", "replayed"]).toContain(refusal.data.reason);
    expect(JSON.stringify(refusals)).not.toMatch(/SAMLResponse|Signature|BEGIN/);
  }, 120_000);

  it("refuses an answer to another browser's sign-in (login CSRF) with a page and an event, opening no session", async () => {
    const acsUrl = `${vexil.url}/auth/saml/callback`;
    // Someone signs in at the IdP in their own browser and keeps the answer instead of letting it reach Vexil.
    const attacker = await browser.newContext();
    const attackerPage = await attacker.newPage();
    let answer: string | undefined;
    await attackerPage.route(acsUrl, async (route) => {
      answer = route.request().postData() ?? undefined;
      await route.abort();
    });
    await attackerPage.goto(`${vexil.url}/auth/saml/login?redirect=/projects/payments`);
    await attackerPage.locator("input[name=username]").fill("ann");
    await attackerPage.locator("input[name=password]").fill("ann-pass-1");
    await attackerPage.locator("#submit_button").click();
    await expect.poll(() => answer).toBeDefined();
    await attacker.close();

    // Another browser, with a sign-in of its own under way, is made to post that answer from another site.
    const victim = await browser.newContext();
    const page = await victim.newPage();
    await page.goto(`${vexil.url}/auth/saml/login`);
    await page.waitForURL((url) => url.hostname === idpHost);
    const refusalsBefore = (await eventsOf("sso-sign-in-refused")).length;
    const answered = page.waitForResponse((res) => res.url() === acsUrl);
    await page.evaluate(
      ({ action, fields }) => {
        const form = document.createElement("form");
        form.method = "POST";
        form.action = action;
        for (const [name, value] of Object.entries(fields)) {
          const input = document.createElement("input");
          input.type = "hidden";
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { action: acsUrl, fields: Object.fromEntries(new URLSearchParams(answer!)) },
    );
    expect((await answered).status()).toBe(400);
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    expect(await page.getByRole("status").innerText()).toContain("started in another browser");
    expect(await sessionCookie(page)).toBeUndefined();
    const refusals = await eventsOf("sso-sign-in-refused");
    expect(refusals.length).toBe(refusalsBefore + 1);
    expect(refusals.map((e) => e.data)).toContainEqual({ provider: "saml", reason: "other-browser" });
    await victim.close();
  }, 90_000);

  it("serves the groups API and a project's group access", async () => {
    const created = await vexil.expectStatus("/api/admin/groups", { method: "POST", body: { name: "temporary", mappingsSSO: [] } }, 201);
    expect((await vexil.expectStatus("/api/admin/groups", undefined, 200)).groups.map((g: { name: string }) => g.name)).toContain(
      "temporary",
    );
    const updated = await vexil.expectStatus(
      `/api/admin/groups/${created.id}`,
      { method: "PUT", body: { name: "renamed", rootRole: 2 } },
      200,
    );
    expect(updated).toMatchObject({ name: "renamed", rootRole: 2 });
    await vexil.expectStatus(
      "/api/admin/projects/payments/access",
      { method: "POST", body: { roles: [4], groups: [{ id: created.id }] } },
      200,
    );
    await vexil.expectStatus(`/api/admin/projects/payments/groups/${created.id}/roles`, { method: "DELETE" }, 200);
    await vexil.expectError("/api/admin/groups", { method: "POST", body: { name: "renamed" } }, 409, "NameExistsError");
    await vexil.expectError("/api/admin/groups", { method: "POST", body: { name: "" } }, 400, "ValidationError");
    await vexil.expectStatus(`/api/admin/groups/${created.id}`, { method: "DELETE" }, 200);
    await vexil.expectError(`/api/admin/groups/${created.id}`, undefined, 404, "NotFoundError");
  });
});

/** Changes a test user's groups at the IdP: SimpleSAMLphp reads its configuration at each request. */
async function setIdpGroups(idp: SimpleSamlPhp, username: string, groups: string[]): Promise<void> {
  const file = path.join(idp.configDir, "authsources.php");
  const text = await readFile(file, "utf8");
  const pattern = new RegExp(`("${username}:[^"]*" => \\[.*?"groups" => )\\[[^\\]]*\\]`);
  expect(pattern.test(text)).toBe(true);
  await writeFile(file, text.replace(pattern, `$1${JSON.stringify(groups)}`));
}
