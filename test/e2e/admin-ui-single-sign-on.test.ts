/**
 * The single sign-on screens of the web UI against a real identity provider (SimpleSAMLphp) in
 * Chromium: the SAML settings form (every field, the API's words next to the field, certificates
 * shown as set or not, never their content), groups mapped to the provider's groups with a project
 * role, then a person of that provider group signs in and may change a flag in the project.
 * axe-core on both screens in the light and dark themes, on a desktop and a phone (390×844).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn, signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import {
  selfSignedPair,
  signInThroughIdp,
  simpleSamlPhpAvailable,
  startSimpleSamlPhp,
  type IdpUser,
  type SimpleSamlPhp,
} from "../src/simplesamlphp.js";

const idpHost = "idp.test";
const ann: IdpUser = {
  username: "ann",
  password: "ann-pass-1",
  email: "ann@example.com",
  name: "Ann Example",
  groups: ["payments-engineers"],
};

const viewports = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } };

/** The base64 body of a PEM block, without its armour: what must never be on screen. */
const pemBody = (pem: string) => pem.split("\n").filter((line) => line && !line.startsWith("-----"))[1]!;

describe.skipIf(!chromiumAvailable || !simpleSamlPhpAvailable)("the single sign-on screens", () => {
  let vexil: TestSystem;
  let idp: SimpleSamlPhp;
  let browser: Browser;
  let keys: string;
  let sp: { key: string; cert: string };
  let admin: Page | undefined;
  /** One admin's page through the screens, signed in by the first test that needs it. */
  const adminPage = async () => (admin ??= await signedInPage(vexil, browser, "admin-ui-single-sign-on"));

  beforeAll(async () => {
    keys = await mkdtemp(path.join(tmpdir(), "vexil-ui-sp-keys-"));
    vexil = await startTestSystem();
    sp = await selfSignedPair(keys, "sp", "vexil");
    idp = await startSimpleSamlPhp({
      host: idpHost,
      sp: {
        entityId: vexil.url,
        acsUrl: `${vexil.url}/auth/saml/callback`,
        sloUrl: `${vexil.url}/auth/saml/logout/callback`,
        certificate: sp.cert,
      },
      users: [ann],
    });
    browser = await launchChromium([`--host-resolver-rules=MAP ${idpHost} 127.0.0.1`]);
    await vexil.createProject("payments", { name: "Payments" });
    for (const project of ["payments", "default"])
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: `${project}-flag` } }, 201);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await vexil?.stop();
    await rm(keys, { recursive: true, force: true });
  });

  it("saves every SAML setting from the form, with the API's words next to the field, never showing a certificate", async () => {
    const admin = await adminPage();
    await admin.getByRole("navigation").getByRole("link", { name: "Single sign-on" }).click();
    await admin.getByRole("heading", { level: 1, name: "Single sign-on" }).waitFor();
    await expect.poll(() => admin.getByText("not set").count()).toBe(2);

    // Enabled without the provider's details: the API's message shows under each field it is about.
    await admin.getByLabel("Sign-in through SAML enabled").check();
    await admin.getByRole("button", { name: "Save SAML settings" }).click();
    const entityId = admin.getByLabel("Identity provider entity id");
    await expect.poll(() => entityId.getAttribute("aria-invalid")).toBe("true");
    await admin.getByText("entityId is required when SAML is enabled").waitFor();
    await admin.getByText("signOnUrl is required when SAML is enabled").waitFor();
    await admin.getByText("certificate is required when SAML is enabled").waitFor();
    expect(await vexil.expectStatus("/api/admin/auth/saml/settings", undefined, 200)).toEqual({ enabled: false });

    await entityId.fill(idp.entityId);
    await admin.getByLabel("Sign-on URL").fill(idp.signOnUrl);
    await admin.getByRole("button", { name: "Set identity provider certificate" }).click();
    await admin.getByLabel("New identity provider certificate").fill(idp.certificate);
    await admin.getByLabel("Sign-out URL").fill(idp.signOutUrl);
    await admin.getByRole("button", { name: "Set service provider key and certificate" }).click();
    await admin.getByLabel("New service provider key and certificate").fill(sp.key + sp.cert);
    await admin.getByLabel("Create accounts on first sign-in").check();
    await admin.getByLabel("Email domains").fill("example.com");
    await admin.getByLabel("Root role of created accounts").selectOption({ label: "Viewer" });
    await admin.getByLabel("Sync groups at each sign-in").check();
    await admin.getByLabel("Group attribute path").fill("groups");
    await admin.getByRole("button", { name: "Save SAML settings" }).click();
    await admin.getByRole("status").getByText("Single sign-on settings saved").waitFor();
    const expected = {
      enabled: true,
      entityId: idp.entityId,
      signOnUrl: idp.signOnUrl,
      certificate: idp.certificate,
      signOutUrl: idp.signOutUrl,
      spCertificate: sp.key + sp.cert,
      autoCreate: true,
      emailDomains: "example.com",
      defaultRootRoleId: 3,
      defaultRootRole: "Viewer",
      enableGroupSyncing: true,
      groupJsonPath: "groups",
    };
    expect(await vexil.expectStatus("/api/admin/auth/saml/settings", undefined, 200)).toEqual(expected);

    // Read again: the certificates are set, their content is nowhere on the screen; saving again keeps them.
    await admin.reload();
    await admin.getByLabel("Identity provider entity id").waitFor();
    expect(await admin.getByText("set", { exact: true }).count()).toBe(2);
    const html = await admin.content();
    for (const secret of [idp.certificate, sp.cert, sp.key]) expect(html).not.toContain(pemBody(secret));
    expect(html).not.toContain("PRIVATE KEY");
    await admin.getByLabel("Email domains").fill("example.com, example.org");
    await admin.getByRole("button", { name: "Save SAML settings" }).click();
    await admin.getByRole("status").getByText("Single sign-on settings saved").waitFor();
    expect(await vexil.expectStatus("/api/admin/auth/saml/settings", undefined, 200)).toEqual({
      ...expected,
      emailDomains: "example.com, example.org",
    });
  }, 120_000);

  it("maps an IdP group to a group with a project role; a person of that IdP group signs in and changes a flag there", async () => {
    const admin = await adminPage();
    await admin.getByRole("navigation").getByRole("link", { name: "Groups" }).click();
    await admin.getByRole("heading", { level: 1, name: "Groups" }).waitFor();
    const create = admin.getByRole("form", { name: "New group" });
    await create.getByLabel("Group name").fill("payments-editors");
    await create.getByLabel("Description").fill("Change flags in Payments");
    await create.getByLabel("Identity provider groups").fill("payments-engineers\n");
    await create.getByRole("button", { name: "Create group" }).click();
    await admin.getByRole("status").getByText("Group payments-editors created").waitFor();
    const row = admin.getByRole("table", { name: "Groups" }).getByRole("row", { name: /payments-editors/ });
    await expect.poll(() => row.innerText()).toContain("payments-engineers");

    // The name is taken: the API's words show in the form.
    await create.getByLabel("Group name").fill("payments-editors");
    await create.getByRole("button", { name: "Create group" }).click();
    await create.getByText("A group named payments-editors already exists").waitFor();
    await create.getByLabel("Group name").fill("");

    await row.getByRole("button", { name: "Edit payments-editors" }).click();
    const roles = admin.getByRole("region", { name: "Project roles of payments-editors" });
    await admin.getByLabel("Project", { exact: true }).selectOption({ label: "Payments" });
    await admin.getByLabel("Project role", { exact: true }).selectOption({ label: "Member" });
    await admin.getByRole("button", { name: "Give project role" }).click();
    await admin.getByRole("status").getByText("payments-editors given Member in Payments").waitFor();
    await expect.poll(() => roles.innerText()).toContain("Payments");
    await expect.poll(() => row.innerText()).toContain("Payments: Member");

    const [group] = (await vexil.expectStatus("/api/admin/groups", undefined, 200)).groups as Array<{
      id: number;
      mappingsSSO: string[];
      description: string;
    }>;
    expect(group).toMatchObject({ mappingsSSO: ["payments-engineers"], description: "Change flags in Payments" });
    const access = await vexil.expectStatus("/api/admin/projects/payments/access", undefined, 200);
    expect(access.groups).toEqual([expect.objectContaining({ id: group!.id, roles: [5] })]);

    // Ann, in payments-engineers at the IdP, signs in through it in a browser of her own.
    const context = await browser.newContext();
    const page = await context.newPage();
    screenshotOnFailure(page, "admin-ui-single-sign-on-ann");
    await signInThroughIdp(page, vexil.url, idpHost, ann, "/projects/payments");
    expect(new URL(page.url()).pathname).toBe("/projects/payments");
    const session = (await context.cookies(vexil.url)).find((c) => c.name === "vexil-session")!;
    const cookie = `vexil-session=${session.value}`;
    const toggle = (project: string) =>
      vexil.api(`/api/admin/projects/${project}/features/${project}-flag/environments/development/on`, {
        method: "POST",
        token: null,
        headers: { cookie },
      });
    expect((await toggle("payments")).status).toBe(200);
    expect((await flagIn(vexil, "payments", "payments-flag")).development).toBe(true);
    // A Viewer of her own: the group's project role reaches Payments only.
    expect((await toggle("default")).status).toBe(403);
    await context.close();

    // The sign-in made her a member; the screen shows it.
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/\b1\b/);
    const members = (await vexil.expectStatus(`/api/admin/groups/${group!.id}`, undefined, 200)).users;
    expect(members.map((m: { user: { email?: string } }) => m.user.email)).toEqual([ann.email]);
  }, 180_000);

  it.each([
    ["light", "desktop"],
    ["dark", "desktop"],
    ["light", "phone"],
    ["dark", "phone"],
  ] as const)(
    "is accessible in the %s theme on a %s",
    async (theme, viewport) => {
      const page = await signedInPage(vexil, browser, `admin-ui-single-sign-on-${theme}-${viewport}`);
      await page.setViewportSize(viewports[viewport]);
      if (theme === "dark") {
        await page.getByRole("button", { name: "Dark theme" }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      }
      await page.goto(`${vexil.url}/single-sign-on`);
      await page.getByLabel("Identity provider entity id").waitFor();
      await page.getByRole("button", { name: "Replace identity provider certificate" }).click();
      await expectAccessible(page, `single sign-on settings, ${theme}, ${viewport}`);
      await page.goto(`${vexil.url}/access/groups`);
      await page.getByRole("button", { name: "Edit payments-editors" }).click();
      await page.getByRole("region", { name: "Project roles of payments-editors" }).waitFor();
      await expectAccessible(page, `groups, ${theme}, ${viewport}`);
    },
    120_000,
  );
});
