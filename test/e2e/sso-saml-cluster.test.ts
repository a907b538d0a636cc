/**
 * SAML sign-in in cluster mode (`npm run start:cluster`: the gateway and each service in a process of
 * its own, over NATS and Redis), through a real identity provider (SimpleSAMLphp) in Chromium: the
 * sign-in starts and ends through the gateway, with the request ids in Redis, and each settings
 * change (enabled, the allowed email domains, disabled) applies at the next request, on the admin
 * process as the gateway reaches it and when asked directly, without the process restarting.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";
import { signInThroughIdp, simpleSamlPhpAvailable, startSimpleSamlPhp, type IdpUser, type SimpleSamlPhp } from "../src/simplesamlphp.js";

const idpHost = "idp.test";
const ann: IdpUser = { username: "ann", password: "ann-pass-1", email: "ann@example.com", name: "Ann Example", groups: [] };
const bob: IdpUser = { username: "bob", password: "bob-pass-1", email: "bob@elsewhere.org", name: "Bob Elsewhere", groups: [] };

const available = chromiumAvailable && simpleSamlPhpAvailable && (await clusterAvailable("SAML sign-in in cluster mode"));

describe.skipIf(!available)("SAML sign-in in cluster mode", () => {
  let vexil: TestSystem;
  let idp: SimpleSamlPhp;
  let browser: Browser;

  beforeAll(async () => {
    vexil = await startTestSystem({ mode: "cluster" });
    idp = await startSimpleSamlPhp({
      host: idpHost,
      sp: { entityId: vexil.url, acsUrl: `${vexil.url}/auth/saml/callback`, sloUrl: `${vexil.url}/auth/saml/logout/callback` },
      users: [ann, bob],
    });
    browser = await launchChromium([`--host-resolver-rules=MAP ${idpHost} 127.0.0.1`]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await vexil?.stop();
  });

  const saveSettings = (changes: Record<string, unknown>) =>
    vexil.expectStatus(
      "/api/admin/auth/saml/settings",
      {
        method: "POST",
        body: {
          enabled: true,
          entityId: idp.entityId,
          signOnUrl: idp.signOnUrl,
          certificate: idp.certificate,
          autoCreate: true,
          emailDomains: "example.com",
          defaultRootRole: "Viewer",
          ...changes,
        },
      },
      200,
    );
  /** What the sign-in page offers and whether a sign-in starts, through the gateway and on the admin process itself. */
  const offered = async () => {
    const answers = [];
    for (const base of [vexil.url, vexil.process.serviceUrl("admin")]) {
      const options = await (await fetch(`${base}/auth/options`)).json();
      const login = await fetch(`${base}/auth/saml/login`, { redirect: "manual" });
      answers.push({ providers: options.providers.map((p: { type: string }) => p.type), login: login.status });
    }
    return answers;
  };
  /** Signs a person in through the gateway in a fresh browser; answers the status of the assertion consumer's answer. */
  const signIn = async (user: IdpUser) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    screenshotOnFailure(page, `sso-saml-cluster-${user.username}`);
    const answered = page.waitForResponse((res) => res.url() === `${vexil.url}/auth/saml/callback`);
    await signInThroughIdp(page, vexil.url, idpHost, user);
    const status = (await answered).status();
    const session = (await context.cookies(vexil.url)).find((c) => c.name === "vexil-session");
    const me = session && (await vexil.api("/api/admin/user", { token: null, headers: { cookie: `vexil-session=${session.value}` } }));
    await context.close();
    return { status, signedInAs: me?.ok ? (await me.json()).user.email : undefined };
  };

  it("applies each settings change at the next request, without restarting the admin process", async () => {
    const adminPid = vexil.process.servicePid("admin");
    expect(await offered()).toEqual([
      { providers: [], login: 404 },
      { providers: [], login: 404 },
    ]);

    await saveSettings({});
    expect(await offered()).toEqual([
      { providers: ["saml"], login: 302 },
      { providers: ["saml"], login: 302 },
    ]);
    expect(await signIn(ann)).toEqual({ status: 303, signedInAs: ann.email });
    // Bob's domain is not allowed yet; once it is, the next sign-in creates him.
    expect(await signIn(bob)).toEqual({ status: 403, signedInAs: undefined });
    await saveSettings({ emailDomains: "example.com, elsewhere.org" });
    expect(await signIn(bob)).toEqual({ status: 303, signedInAs: bob.email });

    await saveSettings({ enabled: false });
    expect(await offered()).toEqual([
      { providers: [], login: 404 },
      { providers: [], login: 404 },
    ]);
    expect(vexil.process.servicePid("admin")).toBe(adminPid);
  }, 180_000);
});
