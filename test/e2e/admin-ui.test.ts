import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

const newPassword = "Sturdy-passw0rd!";

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username or email").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe.skipIf(!chromiumAvailable)("the admin web UI in a real browser", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("signs in with the first-start password, warns until it is changed, deep-links and signs out", async () => {
    const page = await browser.newPage();
    screenshotOnFailure(page, "admin-ui-sign-in");
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));

    // A deep link opens the app; without a session it asks for a sign-in first.
    await page.goto(`${vexil.url}/account`);
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    await expectAccessible(page, "the sign-in screen");

    await signIn(page, "admin", "wrong-password");
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The combination of password and username you provided is invalid");

    await signIn(page, "admin", "unleash4all");
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    const banner = page.getByRole("status").filter({ hasText: "first-start password" });
    await banner.waitFor();
    await expectAccessible(page, "the account screen");

    // The API's own words, next to the field that caused them.
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the new password").fill("short");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.locator(".field", { hasText: "New password" }).getByRole("alert").textContent()).resolves.toBe(
      "Password must be at least 10 characters long",
    );

    await page.getByLabel("New password", { exact: true }).fill(newPassword);
    await page.getByLabel("Repeat the new password").fill(newPassword);
    await page.getByRole("button", { name: "Change password" }).click();
    // Changing the password ends every session: sign in again, with the new one.
    await page.getByText("Password changed. Sign in with the new password.").waitFor();
    await signIn(page, "admin", newPassword);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await banner.count()).toBe(0);

    // Reload keeps the session (cookie); the home page lists the projects.
    await page.goto(`${vexil.url}/`);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await page.getByRole("link", { name: "Default" }).waitFor();
    await expectAccessible(page, "the projects screen");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    expect(
      (
        await vexil.api("/api/admin/user", {
          token: null,
          headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
        })
      ).status,
    ).toBe(401);
    expect(failed).toEqual([]);
  }, 90_000);
});
