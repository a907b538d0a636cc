import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import axe from "axe-core";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { expect, onTestFailed } from "vitest";

/** Debian's Chromium (installed by .ci/run); browser tests skip, saying so, without one. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(chromiumPath);
if (!chromiumAvailable) console.log(`skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** `extraArgs`: more Chromium switches, such as `--host-resolver-rules=MAP idp.test 127.0.0.1` for an identity provider on another site. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

/** Where a failing browser test leaves its last screen. */
export const screenshotDirectory = path.resolve(import.meta.dirname, "../.screenshots");

/** Saves a full-page screenshot of `page` if the current test fails, and says where. */
export function screenshotOnFailure(page: Page, name: string): void {
  onTestFailed(async () => {
    await mkdir(screenshotDirectory, { recursive: true });
    const file = path.join(screenshotDirectory, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    console.log(`screenshot of the failing screen: ${file}`);
  });
}

/** Runs axe-core in the page and expects no serious or critical accessibility violations. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  // Evaluated through the debugging protocol: the pages' CSP refuses inline script tags.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document);
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, `accessibility of ${screen}`).toEqual([]);
}

/** Whether the element has the keyboard focus: where a keyboard-only user's next keys go. */
export function hasFocus(element: Locator): Promise<boolean> {
  return element.evaluate((el) => el === document.activeElement);
}
