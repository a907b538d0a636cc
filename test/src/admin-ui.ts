/**
 * What the admin web UI browser tests share: signing in through the sign-in screen and switches
 * that reflect the server's state.
 */
import type { Browser, Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { screenshotOnFailure } from "./browser.js";
import type { TestSystem } from "./harness.js";

/** The password of the admin users the tests create (strong enough for the password rules). */
export const newPassword = "Sturdy-passw0rd!";

/** Clicks a switch that reflects the server's state, and waits for the server's answer to show. */
export async function switchOn(control: Locator): Promise<void> {
  await control.click();
  await expect.poll(() => control.isChecked()).toBe(true);
}

export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username or email").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A page signed in as a fresh admin user named after the test, with a screenshot if the test fails. */
export async function signedInPage(vexil: TestSystem, browser: Browser, name: string): Promise<Page> {
  const username = `${name}-admin`;
  const created = await vexil.api("/api/admin/user-admin", {
    method: "POST",
    body: { username, rootRole: "Admin", password: newPassword },
  });
  expect(created.status).toBe(201);
  const page = await browser.newPage();
  screenshotOnFailure(page, name);
  await page.goto(vexil.url);
  await signIn(page, username, newPassword);
  await page.getByRole("heading", { name: "Projects" }).waitFor();
  return page;
}

/** Whether a flag is on, per environment, as the admin API reads it. */
export async function flagIn(vexil: TestSystem, project: string, flag: string): Promise<Record<string, boolean>> {
  const res = await vexil.api(`/api/admin/projects/${project}/features/${flag}`);
  const body = (await res.json()) as { environments: { name: string; enabled: boolean }[] };
  return Object.fromEntries(body.environments.map((e) => [e.name, e.enabled]));
}
