import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool, until } from "../src/sdks.js";

/**
 * Reordering a flag's strategies on its page, by dragging with the mouse and from the keyboard:
 * the real server SDK evaluates strategies in order, so the variant of the first one that matches
 * is the one it answers with. In `default` and in a project created while Vexil runs.
 */
describe.skipIf(!chromiumAvailable)("strategy order on the flag page in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;
  const sdks = sdkPool();

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("storefront");
  }, 120_000);
  afterAll(async () => {
    sdks.stopAll();
    await browser?.close();
    await vexil?.stop();
  });

  /** A flag on in development with one strategy per variant name, each matching everyone, in that order. */
  async function flagWithStrategies(project: string, flag: string, variants: string[]): Promise<void> {
    const base = `/api/admin/projects/${project}/features/${flag}`;
    expect((await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } })).status).toBe(201);
    for (const name of variants) {
      const res = await vexil.api(`${base}/environments/development/strategies`, {
        method: "POST",
        body: {
          name: "flexibleRollout",
          title: `Everyone gets ${name}`,
          parameters: { rollout: "100", stickiness: "default", groupId: flag },
          variants: [{ name, weight: 1000, weightType: "variable", stickiness: "default" }],
        },
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expect((await vexil.api(`${base}/environments/development/on`, { method: "POST" })).status).toBe(200);
  }

  /** The strategy titles in the order the page shows them in development. */
  function shownOrder(page: Page): Promise<string[]> {
    return page.getByRole("region", { name: "development" }).locator(".strategy strong").allTextContents();
  }

  /** Drags one handle onto another with the mouse, in small steps as a person's hand moves. */
  async function drag(page: Page, from: Locator, to: Locator): Promise<void> {
    const start = (await from.boundingBox())!;
    const end = (await to.boundingBox())!;
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2 - 10, { steps: 5 });
    await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2 - 5, { steps: 15 });
    await page.mouse.up();
  }

  it.each(["default", "storefront"])(
    "in %s a drag moves the last strategy first, the keyboard moves it back, and the SDK follows each time",
    async (project) => {
      const flag = `${project}-hero-banner`;
      await flagWithStrategies(project, flag, ["alpha", "beta", "gamma"]);
      const token = await vexil.createApiToken({ type: "client", projects: [project] });
      const unleash = await sdks.serverSdk({ url: vexil.url, dataDir: vexil.dataDir }, token, "polling");
      const sdkVariant = () => unleash.getVariant(flag, { userId: "ada" }).name;
      await until(() => sdkVariant() === "alpha", 10_000, "the SDK answers with the first strategy's variant");

      const page = await signedInPage(vexil, browser, `admin-ui-strategy-order-${project}`);
      await page.goto(`${vexil.url}/projects/${project}/features/${flag}`);
      await page.getByText("Everyone gets gamma").waitFor();
      expect(await shownOrder(page)).toEqual(["Everyone gets alpha", "Everyone gets beta", "Everyone gets gamma"]);
      await expectAccessible(page, "the flag page with draggable strategies");

      await drag(
        page,
        page.getByRole("button", { name: "Drag strategy 3 in development" }),
        page.getByRole("button", { name: "Drag strategy 1 in development" }),
      );
      await expect.poll(() => shownOrder(page)).toEqual(["Everyone gets gamma", "Everyone gets alpha", "Everyone gets beta"]);
      await until(() => sdkVariant() === "gamma", 10_000, "the SDK answers with the dragged strategy's variant");
      expect(unleash.getFeatureToggleDefinition(flag)?.strategies?.map((s) => s.variants?.[0]?.name)).toEqual(["gamma", "alpha", "beta"]);

      // From the keyboard: space picks the handle up, arrows move it, space drops it.
      await page.reload();
      await page.getByRole("button", { name: "Drag strategy 1 in development" }).focus();
      // Each key waits for what a screen reader hears, as a person waits for the item to move.
      const heard = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor({ state: "attached" });
      await page.keyboard.press("Space");
      await heard("strategy 1 in development is now at position 1 of 3.");
      await page.keyboard.press("ArrowDown");
      await heard("strategy 1 in development is now at position 2 of 3.");
      await page.keyboard.press("ArrowDown");
      await heard("strategy 1 in development is now at position 3 of 3.");
      await page.keyboard.press("Space");
      await heard("strategy 1 in development dropped at position 3 of 3.");
      await expect.poll(() => shownOrder(page)).toEqual(["Everyone gets alpha", "Everyone gets beta", "Everyone gets gamma"]);
      await until(() => sdkVariant() === "alpha", 10_000, "the SDK answers with the first strategy's variant again");

      // The buttons still move one step at a time.
      await page.getByRole("button", { name: "Move strategy 2 up" }).click();
      await expect.poll(() => shownOrder(page)).toEqual(["Everyone gets beta", "Everyone gets alpha", "Everyone gets gamma"]);
      await until(() => sdkVariant() === "beta", 10_000, "the SDK answers with the moved strategy's variant");
    },
    120_000,
  );
});
