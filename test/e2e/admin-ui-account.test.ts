import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strongPassword } from "../src/access-helpers.js";
import { signIn } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * One's own account and session in a real browser: a Viewer changes their password; a session
 * ended elsewhere closes the page's event stream and shows the sign-in screen, without reconnecting.
 */
describe.skipIf(!chromiumAvailable)("your account in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("lets a Viewer change their password; afterwards only the new one signs in", async () => {
    await vexil.createPerson({ username: "viv", rootRole: "Viewer" });
    const page = await browser.newPage();
    screenshotOnFailure(page, "admin-ui-account-password");
    await page.goto(`${vexil.url}/account`);
    await signIn(page, "viv", strongPassword);
    await page.getByRole("heading", { name: "Your account" }).waitFor();

    const changed = "Viv-new-passw0rd!";
    await page.getByLabel("Current password").fill("Not-my-passw0rd!");
    await page.getByLabel("New password", { exact: true }).fill(changed);
    await page.getByLabel("Repeat the new password").fill(changed);
    await page.getByRole("button", { name: "Change password" }).click();
    // The API's words next to the field that was wrong, and the Viewer is still signed in.
    await expect
      .poll(() => page.locator(".field", { hasText: "Current password" }).getByRole("alert").textContent())
      .toMatch(/^The old password you provided is invalid/);
    await expectAccessible(page, "the account screen with a refused password change");

    await page.getByLabel("Current password").fill(strongPassword);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed.").waitFor();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    await signIn(page, "viv", strongPassword);
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("The combination of password and username you provided is invalid");
    await signIn(page, "viv", changed);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
  }, 90_000);

  it("goes to sign-in when the session ends elsewhere, with the event stream closed and not opened again", async () => {
    await vexil.createPerson({ username: "sid", rootRole: "Editor" });
    const page = await browser.newPage();
    screenshotOnFailure(page, "admin-ui-account-session-end");
    const streamAnswers: number[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/api/admin/event-stream") streamAnswers.push(response.status());
    });
    await page.goto(vexil.url);
    await signIn(page, "sid", strongPassword);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await expect.poll(() => streamAnswers).toEqual([200]);

    // Signed out from another browser: the server ends the stream, the page asks for a sign-in.
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const signOut = await vexil.api("/logout", { method: "POST", token: null, headers: { cookie }, redirect: "manual" });
    expect(signOut.status).toBe(302);
    await page.getByText("Your session ended. Sign in again.").waitFor({ timeout: 30_000 });
    await expectAccessible(page, "the sign-in screen after the session ended");

    // Signing in again opens one new stream; the ended one was never asked for again (no 401s).
    await signIn(page, "sid", strongPassword);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await expect.poll(() => streamAnswers).toEqual([200, 200]);
  }, 90_000);
});
