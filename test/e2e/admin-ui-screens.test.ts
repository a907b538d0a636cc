/**
 * Every screen of the web UI, in `default` and a project created at run time: axe-core finds no
 * serious or critical violation (in the dark theme too), the first Tab reaches the skip link, which
 * moves focus to the screen's content, and each further Tab stop shows where the focus is.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { repoRoot } from "../src/vexil-process.js";

/** Screens outside a project: path and the heading it shows. */
const globalScreens: Array<[string, string]> = [
  ["/", "Projects"],
  ["/projects", "Projects"],
  ["/flags", "All flags"],
  ["/flag-types", "Flag types"],
  ["/account", "Your account"],
  ["/playground", "Playground"],
  ["/segments", "Segments"],
  ["/context", "Context fields"],
  ["/environments", "Environments"],
  ["/tag-types", "Tag types"],
  ["/strategies", "Strategy types"],
  ["/events", "Event log"],
  ["/integrations", "Integrations"],
  ["/signals", "Signal endpoints"],
  ["/applications", "Applications"],
  ["/access/api-tokens", "API tokens"],
  ["/access/users", "Users"],
  ["/access/service-accounts", "Service accounts"],
  ["/access/groups", "Groups"],
  ["/single-sign-on", "Single sign-on"],
  ["/no-such-screen", "Page not found"],
];

/** The app's routes inside a project, each visited below in two projects. */
const projectRoutes = ["/projects/:projectId/features/:flagName", "/projects/:projectId/change-requests/:id", "/projects/:projectId/:tab?"];

/** Tab stops checked after the skip link on each screen. */
const tabStops = 6;

/** Whether the focused element draws a focus ring (an outline or a box shadow). */
const focusShown = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return "nothing focused";
    const style = getComputedStyle(element);
    const ring = (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
    return ring ? "shown" : `no focus ring on ${element.outerHTML.slice(0, 120)}`;
  });

async function openScreen(page: Page, url: string, screen: string, heading: string): Promise<void> {
  await page.goto(`${url}${screen}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  // Read: no skeleton stands in for a list any more.
  await expect.poll(() => page.getByRole("status", { name: "Loading" }).count()).toBe(0);
}

async function checkScreen(page: Page, url: string, screen: string, heading: string): Promise<void> {
  await openScreen(page, url, screen, heading);
  await expectAccessible(page, `the screen at ${screen}`);

  await page.keyboard.press("Tab");
  await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  expect(await focusShown(page), `the skip link at ${screen}`).toBe("shown");
  await page.keyboard.press("Enter");
  await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");
  for (let stop = 0; stop < tabStops; stop++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => document.activeElement?.closest("main") !== null);
    if (!focused) break; // the screen has fewer stops than that
    expect(await focusShown(page), `tab stop ${stop + 1} at ${screen}`).toBe("shown");
  }
}

describe.skipIf(!chromiumAvailable)("every screen of the web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("visits every route the app declares", () => {
    const app = readFileSync(path.join(repoRoot, "services/admin-ui/src/App.tsx"), "utf8");
    const declared = [...app.matchAll(/<Route path="([^"]+)"/g)].map((m) => m[1]);
    const visited = new Set([...globalScreens.map(([screen]) => screen), ...projectRoutes]);
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter((route) => !visited.has(route!))).toEqual([]);
  });

  it("outside a project: accessible, reachable by keyboard, focus always visible", async () => {
    const page = await signedInPage(vexil, browser, "admin-ui-screens");
    for (const [screen, heading] of globalScreens) await checkScreen(page, vexil.url, screen, heading);
  }, 180_000);

  it("outside a project, in the dark theme: accessible (contrast included)", async () => {
    const page = await signedInPage(vexil, browser, "admin-ui-screens-dark");
    await page.getByRole("button", { name: "Dark theme" }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    for (const [screen, heading] of globalScreens) {
      await openScreen(page, vexil.url, screen, heading);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await expectAccessible(page, `the screen at ${screen} in the dark theme`);
    }
  }, 180_000);

  it.each(["default", "screens-fresh"])(
    "in project %s: flags, change requests, archive, actions, settings, a flag and a change request",
    async (project) => {
      const page = await signedInPage(vexil, browser, `admin-ui-screens-${project}`);
      if (project !== "default") await vexil.createProject(project, { name: "Screens fresh" });
      const name = project === "default" ? "Default" : "Screens fresh";
      const flag = `${project}-screen-flag`;
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      await vexil.expectStatus(
        `/api/admin/projects/${project}/environments/production/change-requests/config`,
        { method: "PUT", body: { changeRequestsEnabled: true, requiredApprovals: 1 } },
        204,
      );
      const request = await vexil.api(`/api/admin/projects/${project}/environments/production/change-requests`, {
        method: "POST",
        body: [{ action: "updateEnabled", feature: flag, payload: { enabled: true } }],
      });
      expect(request.status).toBe(200);
      const { id } = (await request.json()) as { id: number };

      const base = `/projects/${project}`;
      for (const tab of ["", "/change-requests", "/archive", "/actions", "/settings"])
        await checkScreen(page, vexil.url, `${base}${tab}`, name);
      await checkScreen(page, vexil.url, `${base}/features/${flag}`, flag);
      await checkScreen(page, vexil.url, `${base}/change-requests/${id}`, `Change request #${id}`);
    },
    180_000,
  );
});
