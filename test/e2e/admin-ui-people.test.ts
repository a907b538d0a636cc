import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/** The people screens in a real browser: editing a user's name, email and root role. */
describe.skipIf(!chromiumAvailable)("people in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("edits a user's name, email and root role, showing the API's refusal next to the field", async () => {
    const grace = await vexil.createPerson({ username: "grace", rootRole: "Viewer" });
    const page = await signedInPage(vexil, browser, "admin-ui-people-users");
    await page.getByRole("link", { name: "Users" }).click();
    await page.getByRole("button", { name: "Edit grace" }).click();
    const form = page.getByRole("form", { name: "Edit grace" });
    await form.getByLabel("Name").fill("G".repeat(256));
    await form.getByRole("button", { name: "Save grace" }).click();
    await form.locator(".field", { hasText: "Name" }).getByRole("alert").waitFor();
    await expectAccessible(page, "the user form");

    await form.getByLabel("Name").fill("Grace Hopper");
    await form.getByLabel("Email").fill("grace@example.com");
    await form.getByLabel("Root role").selectOption({ label: "Editor" });
    await form.getByRole("button", { name: "Save grace" }).click();
    await page.getByRole("cell", { name: "Grace Hopper" }).waitFor();
    const stored = (await (await vexil.api(`/api/admin/user-admin/${grace.id}`)).json()) as Record<string, unknown>;
    expect(stored).toMatchObject({ name: "Grace Hopper", email: "grace@example.com", rootRole: 2 });
    // The new role counts at once: an editor may create a flag.
    const created = await vexil.api("/api/admin/projects/default/features", {
      method: "POST",
      token: grace.token,
      body: { name: "by-grace" },
    });
    expect(created.status).toBe(201);
  }, 90_000);
});
