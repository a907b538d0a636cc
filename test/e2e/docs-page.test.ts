import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

describe.skipIf(!chromiumAvailable)("the API documentation page in a real browser", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    vexil = await startTestSystem();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("renders every surface of the API from the bundled Swagger UI and tries a call", async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));
    await page.goto(`${vexil.url}/docs`);
    await expect(page.title()).resolves.toBe("Vexil API");
    await page.locator(".information-container .title", { hasText: "Vexil API" }).waitFor({ timeout: 15_000 });

    // Every surface is listed as a section; sections open on click.
    const sections = (await page.locator(".opblock-tag").allTextContents()).map((t) => t.trim().split(/\s/)[0]);
    for (const tag of ["projects", "features", "segments", "strategies", "apiTokens", "frontend", "client", "signals", "feedback"]) {
      expect(sections).toContain(tag);
    }
    await page.locator(".opblock-tag", { hasText: /^strategies/ }).click();
    const operation = page
      .locator(".opblock-get", { has: page.locator(".opblock-summary-path", { hasText: /^\/api\/admin\/strategies$/ }) })
      .first();
    await operation.waitFor({ timeout: 15_000 });

    // "Try it out" against the running server, authorised with the admin token.
    await page.getByRole("button", { name: "Authorize" }).first().click();
    await page.locator(".auth-container input").first().fill(vexil.tokens.admin);
    await page.locator(".auth-btn-wrapper .authorize").first().click();
    await page.locator(".btn-done").first().click();
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const status = operation.locator(".live-responses-table tbody .response-col_status").first();
    await status.waitFor({ timeout: 15_000 });
    expect(await status.textContent()).toContain("200");
    expect(await operation.locator(".live-responses-table .microlight").first().textContent()).toContain("flexibleRollout");
    expect(failed).toEqual([]);
  }, 60_000);
});
