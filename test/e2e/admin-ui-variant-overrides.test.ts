import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, hasFocus, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool, until } from "../src/sdks.js";

/**
 * Overrides on a flag's environment variants, built on the flag page from the keyboard: a user
 * listed in an override gets that variant whatever the weights say, from `/api/frontend` and from
 * the real server SDK. In `default` and in a project created while Vexil runs.
 */
describe.skipIf(!chromiumAvailable)("variant overrides on the flag page in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;
  const sdks = sdkPool();

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("checkout");
  }, 120_000);
  afterAll(async () => {
    sdks.stopAll();
    await browser?.close();
    await vexil?.stop();
  });

  it.each(["default", "checkout"])(
    "in %s gives a user listed in an override the variant no weight gives anyone",
    async (project) => {
      const flag = `${project}-new-basket`;
      const base = `/api/admin/projects/${project}/features/${flag}`;
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      const everyone = { name: "flexibleRollout", parameters: { rollout: "100", stickiness: "default", groupId: flag } };
      await vexil.expectStatus(`${base}/environments/development/strategies`, { method: "POST", body: everyone }, 200);
      await vexil.expectStatus(`${base}/environments/development/on`, { method: "POST" }, 200);

      const page = await signedInPage(vexil, browser, `admin-ui-variant-overrides-${project}`);
      await page.goto(`${vexil.url}/projects/${project}/features/${flag}`);
      const development = page.getByRole("region", { name: "development" });
      await development.getByText("Variants in development (0)").focus();
      await page.keyboard.press("Enter");
      const editor = development.getByRole("group", { name: "Variants in development" });
      // Each added variant takes the focus on its name.
      const addVariant = editor.getByRole("button", { name: "Add variant" });
      await addVariant.focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => hasFocus(editor.getByRole("group", { name: "Variant 1" }).getByLabel("Variant name"))).toBe(true);
      await page.keyboard.type("control");
      await addVariant.focus();
      await page.keyboard.press("Enter");
      const second = editor.getByRole("group", { name: "Variant 2" });
      await expect.poll(() => hasFocus(second.getByLabel("Variant name"))).toBe(true);
      await page.keyboard.type("control");
      await second.getByLabel("Weight").selectOption("fix");
      await second.getByLabel("Fixed share (%)").fill("0");

      // A repeated name: the API's words, beside the save button.
      const save = development.getByRole("button", { name: "Save variants in development" });
      await save.click();
      await development.getByRole("alert").filter({ hasText: "must be unique" }).waitFor();
      await second.getByLabel("Variant name").fill("treatment");

      // The override, from the keyboard: the new row takes the focus.
      await second.getByRole("button", { name: "Add override to treatment" }).focus();
      await page.keyboard.press("Enter");
      const override = second.getByRole("group", { name: "Override 1 of treatment" });
      await expect.poll(() => hasFocus(override.getByLabel("Context field"))).toBe(true);
      await page.keyboard.type("userId");
      await page.keyboard.press("Tab");
      await page.keyboard.type("vip-user\nbeta-tester");
      await expectAccessible(page, "the variants editor with an override");
      await save.focus();
      await page.keyboard.press("Enter");
      await development.getByText("Variants in development (2)").waitFor();

      const stored = (await (await vexil.api(`${base}/environments/development/variants`)).json()) as {
        variants: { name: string; weight: number; overrides?: unknown }[];
      };
      expect(stored.variants.map((v) => [v.name, v.weight, v.overrides])).toEqual([
        ["control", 1000, []],
        ["treatment", 0, [{ contextName: "userId", values: ["vip-user", "beta-tester"] }]],
      ]);

      // The frontend API and the real server SDK both honour the override.
      const frontendToken = await vexil.createApiToken({ type: "frontend", projects: [project] });
      const frontendVariant = async (userId: string) => {
        const res = await vexil.api("/api/frontend", { method: "POST", token: frontendToken, body: { context: { userId } } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { toggles: { name: string; variant: { name: string } }[] }).toggles.find((t) => t.name === flag)
          ?.variant.name;
      };
      await expect.poll(() => frontendVariant("vip-user"), { timeout: 10_000 }).toBe("treatment");
      expect(await frontendVariant("beta-tester")).toBe("treatment");
      expect(await frontendVariant("someone-else")).toBe("control");

      const clientToken = await vexil.createApiToken({ type: "client", projects: [project] });
      const unleash = await sdks.serverSdk({ url: vexil.url, dataDir: vexil.dataDir }, clientToken, "polling");
      await until(() => unleash.getVariant(flag, { userId: "vip-user" }).name === "treatment", 10_000, "the SDK honours the override");
      expect(unleash.getVariant(flag, { userId: "someone-else" }).name).toBe("control");
    },
    120_000,
  );
});
