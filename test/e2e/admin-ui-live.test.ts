/**
 * The web UI shows changes made elsewhere without a reload (it follows the admin event stream),
 * and a project of 2,000 flags stays quick to open, page and filter by tag. Timings are printed
 * for the README, never asserted.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn, newPassword, signedInPage, signIn, switchOn } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/** Marks the document, so a test can tell the page was never reloaded. */
const markDocument = (page: Page) => page.evaluate(() => Object.assign(window, { vexilTestMark: true }));
const stillSameDocument = (page: Page) => page.evaluate(() => (window as unknown as { vexilTestMark?: boolean }).vexilTestMark === true);

describe.skipIf(!chromiumAvailable)("the admin web UI, live and at scale", () => {
  let vexil: TestSystem;
  let browser: Browser;

  /** A fresh admin user's page, signed in, with how long the sign-in took to show the first screen. */
  async function timedSignIn(name: string): Promise<{ page: Page; signInMs: number }> {
    const username = `${name}-admin`;
    await vexil.expectStatus(
      "/api/admin/user-admin",
      { method: "POST", body: { username, rootRole: "Admin", password: newPassword } },
      201,
    );
    const page = await browser.newPage();
    screenshotOnFailure(page, name);
    await page.goto(vexil.url);
    const started = performance.now();
    await signIn(page, username, newPassword);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    return { page, signInMs: performance.now() - started };
  }

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("live-web");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it.each(["default", "live-web"])(
    "shows a flag switched through the API on the open flag page and table of project %s",
    async (project) => {
      const flag = `live-${project}`;
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      const page = await signedInPage(vexil, browser, `live-${project}`);

      await page.goto(`${vexil.url}/projects/${project}/features/${flag}`);
      const onFlagPage = page.getByRole("switch", { name: `${flag} in development` });
      await onFlagPage.waitFor();
      expect(await onFlagPage.isChecked()).toBe(false);
      await markDocument(page);
      const switchedAt = performance.now();
      await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/on`, { method: "POST" }, 200);
      await expect.poll(() => onFlagPage.isChecked(), { timeout: 15_000 }).toBe(true);
      console.log(`${project}: the open flag page showed the switch ${(performance.now() - switchedAt).toFixed(0)} ms after the API call`);
      expect(await stillSameDocument(page)).toBe(true);
      // The history on the same page follows too.
      await page.getByRole("table", { name: "Events of this flag" }).getByRole("cell", { name: "feature-environment-enabled" }).waitFor();
      await expectAccessible(page, "the flag page after a live update");

      await page.goto(`${vexil.url}/projects/${project}`);
      const inTable = page.getByRole("switch", { name: `${flag} in development` });
      await expect.poll(() => inTable.isChecked(), { timeout: 15_000 }).toBe(true);
      await markDocument(page);
      await vexil.expectStatus(`/api/admin/projects/${project}/features/${flag}/environments/development/off`, { method: "POST" }, 200);
      await expect.poll(() => inTable.isChecked(), { timeout: 15_000 }).toBe(false);
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: `${flag}-added` } }, 201);
      await page.getByRole("link", { name: `${flag}-added` }).waitFor({ timeout: 15_000 });
      expect(await stillSameDocument(page)).toBe(true);
      await page.close();
    },
  );

  it("opens, pages (to the last flag, switched there) and filters a project of 2,000 flags by tag, and runs the playground over it (timings printed)", async () => {
    const project = await vexil.createProject("big-board");
    const names = Array.from({ length: 2000 }, (_, i) => `flag-${String(i).padStart(4, "0")}`);
    // The import takes a few hundred flags per request (the body limit is 100 kB).
    for (let at = 0; at < names.length; at += 400) {
      const batch = names.slice(at, at + 400);
      const data = {
        features: batch.map((name, i) => ({ name, type: (at + i) % 3 === 0 ? "experiment" : "release" })),
        featureStrategies: [],
        featureTags: batch
          .filter((_, i) => (at + i) % 10 === 0)
          .map((featureName) => ({ featureName, tagType: "simple", tagValue: "tenth" })),
        tagTypes: [],
      };
      await vexil.expectStatus(
        "/api/admin/features-batch/import",
        { method: "POST", body: { project, environment: "development", data } },
        200,
      );
    }

    const { page, signInMs } = await timedSignIn("big-board");
    const reloadStarted = performance.now();
    await page.reload();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const reloadMs = performance.now() - reloadStarted;
    const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime);

    // The pager below the table (the one above has the same buttons).
    const pager = page.getByRole("group", { name: "Pages below the table" });
    const openStarted = performance.now();
    await page.goto(`${vexil.url}/projects/${project}`);
    await pager.getByText("Page 1 of 40 · 2000 flags").waitFor();
    await page.getByRole("link", { name: "flag-0000" }).waitFor();
    const openMs = performance.now() - openStarted;

    const nextStarted = performance.now();
    await pager.getByRole("button", { name: "Next" }).click();
    await pager.getByText("Page 2 of 40 · 2000 flags").waitFor();
    await page.getByRole("link", { name: "flag-0050" }).waitFor();
    const nextMs = performance.now() - nextStarted;

    // The last flag is one click away, and its switch works there.
    const lastStarted = performance.now();
    await pager.getByRole("button", { name: "Last", exact: true }).click();
    await pager.getByText("Page 40 of 40 · 2000 flags").waitFor();
    await switchOn(page.getByRole("switch", { name: "flag-1999 in development" }));
    const lastMs = performance.now() - lastStarted;
    expect((await flagIn(vexil, project, "flag-1999")).development).toBe(true);
    await pager.getByRole("button", { name: "First", exact: true }).click();
    await pager.getByText("Page 1 of 40 · 2000 flags").waitFor();

    const tagStarted = performance.now();
    await page.getByLabel("Tag").selectOption("simple:tenth");
    await pager.getByText("Page 1 of 4 · 200 flags").waitFor();
    const tagMs = performance.now() - tagStarted;
    const shown = await page.getByRole("table", { name: "Flags" }).getByRole("link").allTextContents();
    expect(shown.length).toBe(50);
    expect(shown.every((name) => Number(name.slice(5)) % 10 === 0)).toBe(true);

    await page.getByLabel("Type").selectOption("experiment");
    // Every 30th flag is both tagged and an experiment.
    await pager.getByText("Page 1 of 2 · 67 flags").waitFor();
    await expectAccessible(page, "a project of 2,000 flags filtered by tag and type");

    // The playground over the same project answers 2,000 flags: one page of rows is built, searched by name.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Playground" }).click();
    await page.getByLabel("Environment").selectOption("development");
    await page.getByRole("checkbox", { name: project, exact: true }).check();
    const playgroundStarted = performance.now();
    await page.getByRole("button", { name: "Run" }).click();
    const results = page.getByRole("table", { name: "Playground results" });
    await page.getByRole("group", { name: "Pages below the table" }).getByText("Page 1 of 80 · 2000 flags").waitFor();
    const playgroundMs = performance.now() - playgroundStarted;
    expect(await results.getByRole("row").count()).toBe(26);
    await page.getByRole("searchbox", { name: "Search results" }).fill("flag-1999");
    await expect.poll(() => results.getByRole("link").allTextContents()).toEqual(["flag-1999"]);
    expect(await results.getByRole("row").filter({ hasText: "flag-1999" }).getByRole("cell").nth(2).textContent()).toBe("On");
    await expectAccessible(page, "the playground's 2,000 results, searched");

    console.log(
      [
        "2,000-flag project (timings, not asserted):",
        `  sign-in click → projects screen ${signInMs.toFixed(0)} ms; reload signed in → projects screen ${reloadMs.toFixed(0)} ms (first contentful paint ${paint?.toFixed(0) ?? "?"} ms)`,
        `  open the project → first 50 of 2,000 flags ${openMs.toFixed(0)} ms; next page ${nextMs.toFixed(0)} ms; last page and switch its last flag ${lastMs.toFixed(0)} ms; filter by tag ${tagMs.toFixed(0)} ms`,
        `  playground over the project → first 25 of 2,000 results ${playgroundMs.toFixed(0)} ms`,
      ].join("\n"),
    );
    await page.close();
  }, 180_000);
});
