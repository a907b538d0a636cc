import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn, signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { signalAdmin } from "../src/signals.js";

/**
 * The project's Actions tab in a real browser: an action set built on the screen reacts to a signal
 * posted by an outside system, and the flag it switches reaches `/api/frontend`; in `default` and in
 * a project created while Vexil runs.
 */
describe.skipIf(!chromiumAvailable)("action sets in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;
  const { createEndpoint, createToken, sendAccepted } = signalAdmin(() => vexil);

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("incidents");
    const account = await vexil.api("/api/admin/service-account", {
      method: "POST",
      body: { username: "alert-bot", name: "Alert bot", rootRole: "Editor" },
    });
    expect(account.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  /** The flags `/api/frontend` answers with for a frontend token of `project` in development. */
  async function frontendFlags(token: string): Promise<string[]> {
    const res = await vexil.api("/api/frontend", { method: "POST", token, body: { context: {} } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { toggles: { name: string }[] }).toggles.map((t) => t.name);
  }

  it.each(["default", "incidents"])(
    "creates an action set in %s whose signal turns a flag on for the frontend API, then disables and deletes it",
    async (project) => {
      const flag = `${project}-maintenance-banner`;
      expect((await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } })).status).toBe(201);
      const endpoint = await createEndpoint(`${project}-alerts`);
      const signalToken = await createToken(endpoint.id, "monitoring");
      const frontendToken = await vexil.createApiToken({ type: "frontend", projects: [project] });
      expect(await frontendFlags(frontendToken)).not.toContain(flag);

      const page = await signedInPage(vexil, browser, `admin-ui-actions-${project}`);
      await page.goto(`${vexil.url}/projects/${project}/actions`);
      await page.getByText("No action sets.").waitFor();
      await page.getByRole("button", { name: "New action set" }).click();
      const form = page.getByRole("form", { name: "New action set" });
      await form.getByLabel("Action set name").fill("Banner on alert");
      await form.getByLabel("Signal endpoint").selectOption({ label: endpoint.name });
      await form.getByLabel("Run as service account").selectOption({ label: "Alert bot" });
      await form.getByRole("button", { name: "Add filter" }).click();
      const filter = form.getByRole("group", { name: "Filter 1" });
      await filter.getByLabel("Payload path").fill("alert.status");
      await filter.getByLabel("Operator").selectOption("NUM_GT");
      await filter.getByLabel("Value", { exact: true }).fill("firing");
      const action = form.getByRole("group", { name: "Action 1" });
      await action.getByLabel("Action").selectOption({ label: "Turn the flag on" });
      await action.getByLabel("Flag").fill(flag);
      await action.getByLabel("Environment").selectOption("development");
      await expectAccessible(page, "the action set form");

      // A number operator on a word: the API refuses it, in its words, next to the filters.
      await form.getByRole("button", { name: "Save action set" }).click();
      await form.getByRole("alert").filter({ hasText: '"firing" is not a number' }).waitFor();
      await filter.getByLabel("Operator").selectOption("IN");
      await filter.getByLabel("Values (one per line)").fill("firing");
      await form.getByRole("button", { name: "Save action set" }).click();
      await page.getByRole("heading", { name: "Banner on alert" }).waitFor();
      await page.getByText(`Turn on ${flag} in development`).waitFor();
      await expectAccessible(page, "the action sets list");
      await page.getByRole("button", { name: "Edit Banner on alert" }).click();
      const edit = page.getByRole("form", { name: "Edit action set Banner on alert" });
      await edit.getByLabel("Description").fill("Shown while an incident is open");
      await edit.getByRole("button", { name: "Save action set" }).click();
      await page.getByText("Shown while an incident is open").waitFor();

      // A signal that does not pass the filter changes nothing; one that does turns the flag on.
      await sendAccepted(endpoint.name, `Bearer ${signalToken}`, { alert: { status: "resolved" } });
      await sendAccepted(endpoint.name, `Bearer ${signalToken}`, { alert: { status: "firing" } });
      await expect.poll(() => frontendFlags(frontendToken), { timeout: 30_000 }).toContain(flag);
      expect((await flagIn(vexil, project, flag)).production).toBe(false);
      await page.getByText("Recent runs").click();
      await page.locator(".badge", { hasText: "success" }).waitFor();

      await page.getByRole("switch", { name: "Action set Banner on alert enabled" }).click();
      await expect.poll(() => page.getByRole("switch", { name: "Action set Banner on alert enabled" }).isChecked()).toBe(false);
      const stored = (await (await vexil.api(`/api/admin/projects/${project}/actions`)).json()) as { actions: { enabled: boolean }[] };
      expect(stored.actions.map((a) => a.enabled)).toEqual([false]);

      // Deleting asks first.
      page.once("dialog", (dialog) => void dialog.dismiss());
      await page.getByRole("button", { name: "Delete Banner on alert" }).click();
      await page.getByRole("heading", { name: "Banner on alert" }).waitFor();
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Delete Banner on alert" }).click();
      await page.getByText("No action sets.").waitFor();
      expect((await (await vexil.api(`/api/admin/projects/${project}/actions`)).json()).actions).toEqual([]);
    },
    120_000,
  );
});
