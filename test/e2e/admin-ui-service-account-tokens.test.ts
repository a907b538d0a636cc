import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/** Service account tokens in a real browser: create one (its secret shown once), use it, delete it. */
describe.skipIf(!chromiumAvailable)("service account tokens in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("creates a service account token, shows its secret once with copy, and deletes it after asking", async () => {
    const project = await vexil.createProject("bots");
    const page = await signedInPage(vexil, browser, "admin-ui-service-account-tokens");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: vexil.url });
    await page.getByRole("link", { name: "Service accounts" }).click();
    await page.getByLabel("Username").fill("ui-bot");
    await page.getByLabel("Root role").selectOption({ label: "Editor" });
    await page.getByRole("button", { name: "Create service account" }).click();
    await page.getByRole("button", { name: "Tokens of ui-bot" }).click();
    const tokens = page.getByRole("region", { name: "Tokens of ui-bot" });
    await tokens.getByText("No tokens yet.").waitFor();
    await expectAccessible(page, "a service account's tokens");

    // The API's refusal, next to the field.
    await tokens.getByLabel("Token description").fill("ci");
    await tokens.getByLabel("Expires on").fill("2001-01-01");
    await tokens.getByRole("button", { name: "Create token" }).click();
    await expect
      .poll(() => tokens.locator(".field", { hasText: "Expires on" }).getByRole("alert").textContent())
      .toBe("Must be in the future");

    await tokens.getByLabel("Expires on").fill("2099-12-31");
    await tokens.getByRole("button", { name: "Create token" }).click();
    const secret = (await tokens.getByLabel("Secret").textContent())!;
    expect(secret).toMatch(/^user:/);
    await tokens.getByRole("button", { name: "Copy" }).click();
    await tokens.getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await tokens.getByRole("button", { name: "Done" }).click();
    expect(await tokens.getByLabel("Secret").count()).toBe(0);
    await expectAccessible(page, "a service account's token list");

    // The token acts as the Editor account in a project created at run time.
    const created = await vexil.api(`/api/admin/projects/${project}/features`, {
      method: "POST",
      token: secret,
      body: { name: "from-ui-bot" },
    });
    expect(created.status).toBe(201);

    page.once("dialog", (dialog) => void dialog.accept());
    await tokens.getByRole("button", { name: "Delete ci" }).click();
    await tokens.getByText("No tokens yet.").waitFor();
    expect((await vexil.api(`/api/admin/projects/${project}/features`, { token: secret })).status).toBe(401);
  }, 90_000);
});
