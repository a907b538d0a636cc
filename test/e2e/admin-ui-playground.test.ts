import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { flagAdmin } from "../src/flag-admin.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

const password = "Sturdy-passw0rd!";

/** The Playground screen in a real browser: a context in, each flag's answer and its reason out. */
describe.skipIf(!chromiumAvailable)("the admin web UI's playground", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    const admin = flagAdmin((path, init) => vexil.api(path, init));
    await admin.createFeature("gold-checkout");
    await admin.addStrategy("gold-checkout", "development", {
      name: "flexibleRollout",
      title: "Gold customers",
      parameters: { rollout: "100", stickiness: "default", groupId: "gold-checkout" },
      constraints: [{ contextName: "tier", operator: "IN", values: ["gold"] }],
    });
    await admin.setEnabled("gold-checkout", "development", true);
    const created = await vexil.api("/api/admin/user-admin", {
      method: "POST",
      body: { username: "playground-admin", rootRole: "Admin", password },
    });
    expect(created.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("runs a context and shows the result and the reason per flag", async () => {
    const page = await browser.newPage();
    screenshotOnFailure(page, "admin-ui-playground");
    await page.goto(vexil.url);
    await page.getByLabel("Username or email").fill("playground-admin");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Playground" }).click();
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    await page.getByLabel("Environment").selectOption("development");
    await page.getByLabel("User ID").fill("user-7");
    await page.getByRole("button", { name: "Add property" }).click();
    await page.getByLabel("Property 1 name").fill("tier");
    await page.getByLabel("Property 1 value").fill("gold");
    await expectAccessible(page, "the playground form");
    await page.getByRole("button", { name: "Run" }).click();

    const row = page.getByRole("table", { name: "Playground results" }).getByRole("row").filter({ hasText: "gold-checkout" });
    await expect.poll(() => row.getByRole("cell").nth(2).textContent()).toBe("On");
    await row.getByText("Why gold-checkout").click();
    const strategy = row.getByRole("listitem").filter({ hasText: "Gold customers" }).first();
    await expect(strategy.textContent()).resolves.toContain("matches");
    await expect(row.locator(".plain-list li", { hasText: "tier is one of gold" }).textContent()).resolves.toContain("true");
    await expectAccessible(page, "the playground results");

    // Another tier: off, and the reason names the failing constraint.
    await page.getByLabel("Property 1 value").fill("silver");
    await page.getByRole("button", { name: "Run" }).click();
    await expect.poll(() => row.getByRole("cell").nth(2).textContent()).toBe("Off");
    await expect(row.locator(".plain-list li", { hasText: "tier is one of gold" }).textContent()).resolves.toContain("false");
  }, 90_000);
});
