import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage, switchOn } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, hasFocus, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * The Environments screen: changing an environment's type and position from the keyboard,
 * switching it off and on, and deleting it, which the API refuses while a project (`default` or
 * one created while Vexil runs) still has it. Each step is read back through the admin API.
 */
describe.skipIf(!chromiumAvailable)("environments in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.expectStatus("/api/admin/environments", { method: "POST", body: { name: "staging", type: "test" } }, 201);
    // A project created now has every enabled environment, staging too.
    await vexil.createProject("mobile");
    await vexil.expectStatus("/api/admin/projects/default/environments", { method: "POST", body: { environment: "staging" } }, 200);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  const environments = async () =>
    ((await (await vexil.api("/api/admin/environments")).json()) as { environments: { name: string; type: string; enabled: boolean }[] })
      .environments;
  const projectEnvironments = async (project: string) =>
    ((await (await vexil.api(`/api/admin/projects/${project}`)).json()) as { environments: { environment: string }[] }).environments.map(
      (e) => e.environment,
    );

  it("edits, reorders, switches and deletes an environment", async () => {
    const page = await signedInPage(vexil, browser, "admin-ui-environments");
    await page.getByRole("link", { name: "Environments" }).click();
    const table = page.getByRole("table", { name: "Environments" });
    const shownOrder = async () => (await table.locator("tbody tr td:first-child").allTextContents()).map((t) => t.trim());
    await expect.poll(shownOrder).toEqual(["development", "production", "staging"]);
    await expectAccessible(page, "the environments screen");

    // Type and position, from the keyboard; a position the API cannot take is refused at its field.
    const editButton = page.getByRole("button", { name: "Edit staging" });
    await editButton.focus();
    await page.keyboard.press("Enter");
    const form = page.getByRole("form", { name: "Edit environment staging" });
    await expect.poll(() => hasFocus(form.getByLabel("Type"))).toBe(true);
    await form.getByLabel("Type").selectOption("preproduction");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("0.5");
    await page.keyboard.press("Enter");
    await form.locator(".field", { hasText: "Sort order" }).getByRole("alert").filter({ hasText: "integer" }).waitFor();
    await expectAccessible(page, "the environment form with an error");
    await form.getByLabel("Sort order").fill("1");
    await page.keyboard.press("Enter");
    await form.waitFor({ state: "detached" });
    await expect.poll(() => hasFocus(editButton)).toBe(true);
    await expect.poll(shownOrder).toEqual(["staging", "development", "production"]);
    expect((await environments()).map((e) => [e.name, e.type])).toEqual([
      ["staging", "preproduction"],
      ["development", "development"],
      ["production", "production"],
    ]);

    await page.getByRole("button", { name: "Move staging down" }).click();
    await expect.poll(shownOrder).toEqual(["development", "staging", "production"]);
    expect((await environments()).map((e) => e.name)).toEqual(["development", "staging", "production"]);

    // Off: a project created meanwhile does not get it; on again, the next one does.
    const staging = page.getByRole("switch", { name: "Environment staging enabled" });
    await staging.click();
    await expect.poll(() => staging.isChecked()).toBe(false);
    expect((await environments()).find((e) => e.name === "staging")?.enabled).toBe(false);
    await vexil.createProject("while-off");
    expect(await projectEnvironments("while-off")).not.toContain("staging");
    await staging.click();
    await expect.poll(() => staging.isChecked()).toBe(true);
    await vexil.createProject("when-on");
    expect(await projectEnvironments("when-on")).toContain("staging");

    // Deleting asks first; the API refuses while projects have it, in its words, in the row.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await page.getByRole("button", { name: "Delete staging" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete staging" }).click();
    const refusal = page.getByRole("row").filter({ hasText: "staging" }).getByRole("alert");
    await expect.poll(() => refusal.textContent()).toMatch(/^Environment staging is enabled in project\(s\) /);
    for (const project of ["default", "mobile", "when-on"]) expect(await refusal.textContent()).toContain(project);
    for (const project of ["default", "mobile", "when-on"]) {
      await vexil.expectStatus(`/api/admin/projects/${project}/environments/staging`, { method: "DELETE" }, 200);
    }
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete staging" }).click();
    await expect.poll(shownOrder).toEqual(["development", "production"]);
    await vexil.expectError("/api/admin/environments/staging", undefined, 404, "NotFoundError");
  }, 120_000);

  it.each(["default", "tablets"])(
    "in %s sets the project's collaboration mode and flag limit, and stops and starts using an environment",
    async (project) => {
      if (project !== "default") await vexil.createProject(project);
      const page = await signedInPage(vexil, browser, `admin-ui-project-settings-${project}`);
      await page.goto(`${vexil.url}/projects/${project}/settings`);
      await page.getByLabel("Collaboration mode").selectOption("protected");
      await page.getByLabel("Flag limit").fill("5");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
      const settings = (await (await vexil.api(`/api/admin/projects/${project}`)).json()) as { mode: string; featureLimit: number | null };
      expect(settings).toMatchObject({ mode: "protected", featureLimit: 5 });

      // Stopping removes the environment's strategies, so it asks first.
      const development = page.getByRole("switch", { name: "Use development" });
      page.once("dialog", (dialog) => void dialog.accept());
      await development.click();
      await expect.poll(() => projectEnvironments(project)).not.toContain("development");
      await expect.poll(() => development.isChecked()).toBe(false);
      await expectAccessible(page, "the project settings without an environment");
      await switchOn(development);
      await expect.poll(() => projectEnvironments(project)).toContain("development");
    },
    90_000,
  );
});
