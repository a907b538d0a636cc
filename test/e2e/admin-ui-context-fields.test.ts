import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, hasFocus, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Editing a context field on the Context screen, by keyboard: its description, stickiness and legal
 * values (value and description). The API's refusal shows next to the legal values; a value added
 * on the screen is then accepted in a constraint and decides what `/api/frontend` answers, in
 * `default` and in a project created while Vexil runs.
 */
describe.skipIf(!chromiumAvailable)("editing context fields in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("billing");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it.each(["default", "billing"])(
    "adds a legal value with a description, turns on stickiness and the value works in a constraint in %s",
    async (project) => {
      const field = `${project}-plan`;
      const flag = `${project}-premium-support`;
      expect(
        (await vexil.api("/api/admin/context", { method: "POST", body: { name: field, legalValues: [{ value: "gold" }] } })).status,
      ).toBe(201);
      expect((await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } })).status).toBe(201);
      const strategies = `/api/admin/projects/${project}/features/${flag}/environments/development/strategies`;
      const platinumOnly = { name: "default", constraints: [{ contextName: field, operator: "IN", values: ["platinum"] }] };
      // Not a legal value yet: the API refuses the constraint.
      await vexil.expectError(strategies, { method: "POST", body: platinumOnly }, 400, "ValidationError");

      const page = await signedInPage(vexil, browser, `admin-ui-context-${project}`);
      await page.getByRole("link", { name: "Context" }).click();
      const editButton = page.getByRole("button", { name: `Edit ${field}` });
      await editButton.focus();
      await page.keyboard.press("Enter");
      const form = page.getByRole("form", { name: `Edit context field ${field}` });
      // The form takes the focus on its first field: the rest is typed and tabbed.
      await expect.poll(() => hasFocus(form.getByLabel("Description", { exact: true }))).toBe(true);
      await page.keyboard.type("Pricing plan");
      await form.getByRole("button", { name: "Add legal value" }).focus();
      await page.keyboard.press("Enter");
      // The new row takes the focus.
      const secondValue = form.getByRole("group", { name: "Legal value 2" }).getByLabel("Value", { exact: true });
      await expect.poll(() => hasFocus(secondValue)).toBe(true);
      await page.keyboard.type("gold");
      await page.keyboard.press("Tab");
      await page.keyboard.type("Top tier");
      await form.getByRole("button", { name: "Save context field" }).focus();
      await page.keyboard.press("Enter");
      // A repeated value: the API's words, next to the legal values.
      await form
        .getByRole("group", { name: "Legal values" })
        .getByRole("alert")
        .filter({ hasText: "legalValues must not repeat a value" })
        .waitFor();
      await expectAccessible(page, "the context field form with an error");

      await secondValue.fill("platinum");
      await form.getByLabel("Usable as stickiness").focus();
      await page.keyboard.press("Space");
      await form.getByRole("button", { name: "Save context field" }).focus();
      await page.keyboard.press("Enter");
      await form.waitFor({ state: "detached" });
      // Closed, the focus is back on the button that opened it.
      await expect.poll(() => hasFocus(editButton)).toBe(true);
      await page.getByRole("row").filter({ hasText: field }).getByRole("cell", { name: "gold, platinum (Top tier)" }).waitFor();
      await expectAccessible(page, "the context fields screen");

      const stored = (await (await vexil.api(`/api/admin/context/${field}`)).json()) as Record<string, unknown>;
      expect(stored).toMatchObject({
        name: field,
        description: "Pricing plan",
        stickiness: true,
        legalValues: [{ value: "gold" }, { value: "platinum", description: "Top tier" }],
      });

      // The new value is legal now, and decides what the frontend API answers.
      await vexil.expectStatus(strategies, { method: "POST", body: platinumOnly }, 200);
      await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
      const token = await vexil.createApiToken({ type: "frontend", projects: [project] });
      const flagsFor = async (plan: string) => {
        const res = await vexil.api("/api/frontend", { method: "POST", token, body: { context: { properties: { [field]: plan } } } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { toggles: { name: string }[] }).toggles.map((t) => t.name);
      };
      await expect.poll(() => flagsFor("platinum"), { timeout: 10_000 }).toContain(flag);
      expect(await flagsFor("gold")).not.toContain(flag);
    },
    120_000,
  );
});
