import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, hasFocus, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { startReceiver, type Receiver } from "./addons-receiver.js";

/**
 * Scoping an integration on the Integrations screen, from the keyboard: the events, projects and
 * environments it applies to. A webhook scoped to a project created while Vexil runs, and to
 * development, reaches a real HTTP receiver for that project's change there, and never for a
 * change in `default` or in production.
 */
describe.skipIf(!chromiumAvailable)("integration scopes in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    [vexil, browser] = await Promise.all([startTestSystem({ env: { ADDONS_ALLOW_PRIVATE_URLS: "true" } }), launchChromium()]);
    await vexil.createProject("payments");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
    await receiver?.close();
  });

  const createFlag = (project: string, name: string) =>
    vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }, 201);
  const enable = (project: string, name: string, environment: string) =>
    vexil.expectStatus(`/api/admin/projects/${project}/features/${name}/environments/${environment}/on`, { method: "POST" }, 200);
  const delivered = () => receiver.on("/hooks/payments").map((r) => JSON.parse(r.body) as Record<string, unknown>);

  it("delivers a scoped webhook's events for its project and environment only", async () => {
    const page = await signedInPage(vexil, browser, "admin-ui-addon-scopes");
    await page.getByRole("link", { name: "Integrations" }).click();
    const newButton = page.getByRole("button", { name: "New integration" });
    await newButton.focus();
    await page.keyboard.press("Enter");
    const form = page.getByRole("form", { name: "New integration" });
    // The form takes the focus on its first field.
    await expect.poll(() => hasFocus(form.getByLabel("Provider"))).toBe(true);
    await form.getByLabel("Provider").selectOption({ label: "Webhook" });
    await form.getByLabel("Webhook URL").fill("gopher://127.0.0.1/hooks");
    // Choices from the keyboard: each checkbox is reached and ticked with Space.
    const tick = async (group: string, value: string) => {
      await form.getByRole("group", { name: group }).getByLabel(value, { exact: true }).focus();
      await page.keyboard.press("Space");
    };
    await tick("Events to send", "feature-created");
    await tick("Events to send", "feature-updated");
    await tick("Events to send", "feature-environment-enabled");
    await tick("Projects", "payments");
    await tick("Environments", "development");
    await form.getByRole("button", { name: "Save integration" }).focus();
    await page.keyboard.press("Enter");
    // The API's words, next to the URL that caused them.
    await form.locator(".field", { hasText: "Webhook URL" }).getByRole("alert").filter({ hasText: "http or https" }).waitFor();
    await expectAccessible(page, "the integration form with its scopes");

    await form.getByLabel("Webhook URL").fill(receiver.url("/hooks/payments"));
    await form.getByRole("button", { name: "Save integration" }).click();
    await form.waitFor({ state: "detached" });
    // Closed, the focus is back on the button that opened it.
    await expect.poll(() => hasFocus(newButton)).toBe(true);
    const row = page.getByRole("row").filter({ hasText: "Webhook" });
    await row.getByRole("cell", { name: "payments", exact: true }).waitFor();
    await row.getByRole("cell", { name: "development", exact: true }).waitFor();
    await expectAccessible(page, "the integrations list");

    const stored = (await (await vexil.api("/api/admin/addons")).json()) as { addons: Record<string, unknown>[] };
    expect(stored.addons).toEqual([
      expect.objectContaining({ events: ["feature-environment-enabled"], projects: ["payments"], environments: ["development"] }),
    ]);

    // Out of scope: another project's change, and this project's change in production.
    await createFlag("default", "default-banner");
    await enable("default", "default-banner", "development");
    await createFlag("payments", "instant-refunds");
    await enable("payments", "instant-refunds", "production");
    // In scope. Events are matched in the stream's order, so once this one arrived, the earlier
    // ones have been passed over.
    await enable("payments", "instant-refunds", "development");
    await expect.poll(() => delivered().length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(delivered()).toEqual([
      expect.objectContaining({
        type: "feature-environment-enabled",
        project: "payments",
        environment: "development",
        featureName: "instant-refunds",
      }),
    ]);

    // The delivery log on the screen says so too.
    // Its buttons are named by the integration, not by a number.
    await row.getByRole("button", { name: "Deliveries of Webhook", exact: true }).click();
    await page.getByRole("table", { name: "Deliveries of Webhook" }).getByRole("cell", { name: "feature-environment-enabled" }).waitFor();
  }, 120_000);
});
