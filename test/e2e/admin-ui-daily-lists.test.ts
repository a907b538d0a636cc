/**
 * The daily lists and their actions, in `default` and a project created at run time, in the light and
 * dark themes, on a desktop and a phone (390×844), with axe-core on every screen it opens: a flag
 * marked as a favourite, a link added to a flag and removed, the event log's "what changed" and its
 * link to the flag, a member given a project role and removed, the flag types with their counts, and
 * bulk actions (a tag, then archive) on the ticked flags.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newPassword, signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

const viewports = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } };
type Viewport = keyof typeof viewports;
type Theme = "light" | "dark";

const cases: Array<[string, Theme, Viewport]> = [];
for (const project of ["default", "lists-fresh"])
  for (const theme of ["light", "dark"] as const)
    for (const viewport of ["desktop", "phone"] as const) cases.push([project, theme, viewport]);

/** Accepts the browser's own confirmation the next action asks for, and says what it asked. */
function acceptNextDialog(page: Page): Promise<string> {
  return new Promise((resolve) =>
    page.once("dialog", (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }),
  );
}

describe.skipIf(!chromiumAvailable)("the admin UI's daily lists and their actions", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("lists-fresh", { name: "Lists fresh" });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it.each(cases)(
    "in %s, %s theme, on a %s",
    async (project, theme, viewport) => {
      const prefix = `lists-${theme}-${viewport}-${project}`;
      const [first, second] = [`${prefix}-a`, `${prefix}-b`];
      for (const name of [first, second])
        await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }, 201);
      // A description changed through the API: the event log shows before and after.
      await vexil.expectStatus(
        `/api/admin/projects/${project}/features/${first}`,
        { method: "PATCH", body: [{ op: "replace", path: "/description", value: "Shown to the winter shoppers" }] },
        200,
      );
      // A tag the bulk action offers, and a user to make a member.
      await vexil.expectStatus(`/api/admin/features/${first}/tags`, { method: "POST", body: { type: "simple", value: prefix } }, 201);
      const member = `${prefix}-member`;
      await vexil.expectStatus(
        "/api/admin/user-admin",
        { method: "POST", body: { username: member, rootRole: "Viewer", password: newPassword } },
        201,
      );

      const page = await signedInPage(vexil, browser, `admin-ui-lists-${project}-${theme}-${viewport}`);
      await page.setViewportSize(viewports[viewport]);
      if (theme === "dark") {
        await page.getByRole("button", { name: "Dark theme" }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      }
      const flagsOf = async () => {
        await page.goto(`${vexil.url}/projects/${project}`);
        await page.getByRole("searchbox", { name: "Search" }).fill(prefix);
        const table = page.getByRole("table", { name: "Flags" });
        await expect.poll(() => table.getByRole("row").count()).toBe(3);
        return table;
      };

      // A favourite: marked in the table, still marked after a reload.
      let table = await flagsOf();
      const star = table.getByRole("button", { name: `Favourite ${second}` });
      expect(await star.getAttribute("aria-pressed")).toBe("false");
      await star.click();
      await expect.poll(() => star.getAttribute("aria-pressed")).toBe("true");
      // Favourites are the signed-in person's own: a reload reads them back from the API.
      table = await flagsOf();
      expect(await table.getByRole("button", { name: `Favourite ${second}` }).getAttribute("aria-pressed")).toBe("true");
      await expectAccessible(page, `a favourite in the flags of ${project} (${theme}, ${viewport})`);

      // A link on the flag: a refused URL is explained at the field in the API's words; a good one opens in a new tab and is removed after asking.
      await table.getByRole("link", { name: first, exact: true }).click();
      await page.getByRole("heading", { level: 1, name: first }).waitFor();
      const links = page.getByRole("region", { name: "Links" });
      await links.getByLabel("URL").fill("javascript:alert(1)");
      await links.getByRole("button", { name: "Add link" }).click();
      await links
        .locator(".field", { hasText: "URL" })
        .getByRole("alert")
        .filter({ hasText: "Only http and https links are allowed" })
        .waitFor();
      await expectAccessible(page, `a refused link (${theme}, ${viewport})`);
      await links.getByLabel("URL").fill("https://issues.example.com/SHOP-42");
      await links.getByLabel("Title").fill("SHOP-42");
      await links.getByRole("button", { name: "Add link" }).click();
      const link = links.getByRole("link", { name: "SHOP-42" });
      await link.waitFor();
      expect(await link.getAttribute("target")).toBe("_blank");
      expect(await link.getAttribute("href")).toBe("https://issues.example.com/SHOP-42");
      const removeQuestion = acceptNextDialog(page);
      await links.getByRole("button", { name: "Remove link SHOP-42" }).click();
      expect(await removeQuestion).toBe("Remove the link SHOP-42?");
      await link.waitFor({ state: "detached" });
      await page.getByRole("status").filter({ hasText: "Link SHOP-42 removed" }).waitFor();

      // The event log: what changed, before and after, and a link back to the flag.
      await page.goto(`${vexil.url}/events`);
      await page.getByRole("textbox", { name: "Flag", exact: true }).fill(first);
      await page.getByLabel("Event type").selectOption("feature-metadata-updated");
      const events = page.getByRole("table", { name: "Events" });
      const change = events.getByRole("listitem").filter({ hasText: "description" });
      await expect.poll(() => change.textContent()).toMatch(/^description: .+ → "Shown to the winter shoppers"$/);
      await expectAccessible(page, `the event log's changes (${theme}, ${viewport})`);
      await events.getByRole("link", { name: `${project} / ${first}` }).click();
      await page.getByRole("heading", { level: 1, name: first }).waitFor();

      // A member with a project role, shown on the users page too, then removed after asking.
      await page.goto(`${vexil.url}/projects/${project}/settings`);
      const members = page.getByRole("region", { name: "Members" });
      await members.getByLabel("User").selectOption({ label: member });
      await members.getByLabel("Project role").selectOption({ label: "Member" });
      await members.getByRole("button", { name: "Add member" }).click();
      const row = members.getByRole("row").filter({ hasText: member });
      await row.getByRole("cell", { name: "Member", exact: true }).waitFor();
      await expectAccessible(page, `the project's members (${theme}, ${viewport})`);
      const access = (await (await vexil.api(`/api/admin/projects/${project}/access`)).json()) as {
        users: { id: number; roles: number[] }[];
        roles: { id: number; name: string }[];
      };
      const memberRole = access.roles.find((r) => r.name === "Member")!.id;
      expect(access.users.some((u) => u.roles.includes(memberRole))).toBe(true);
      await page.goto(`${vexil.url}/access/users`);
      const projectName = project === "default" ? "Default" : "Lists fresh";
      await page
        .getByRole("row")
        .filter({ hasText: member })
        .getByText(new RegExp(`${projectName}: Member`))
        .waitFor();
      await page.goto(`${vexil.url}/projects/${project}/settings`);
      const leaveQuestion = acceptNextDialog(page);
      await members.getByRole("button", { name: `Remove ${member}` }).click();
      expect(await leaveQuestion).toBe(`Remove ${member} from the project?`);
      await row.waitFor({ state: "detached" });

      // Flag types: what each is for, its lifetime, and how many flags have it, linked to them.
      await page.goto(`${vexil.url}/flag-types`);
      const types = page.getByRole("table", { name: "Flag types" });
      const release = types.getByRole("row").filter({ hasText: "Release" });
      expect(await release.getByRole("cell").nth(1).textContent()).toBe("40 days");
      const releaseFlags = release.getByRole("link", { name: /^\d+ Release flags$/ });
      await releaseFlags.waitFor();
      const releaseCount = Number((await releaseFlags.textContent())!.split(" ")[0]);
      expect(releaseCount).toBeGreaterThanOrEqual(2);
      await expectAccessible(page, `the flag types (${theme}, ${viewport})`);
      await releaseFlags.click();
      await page.getByRole("heading", { level: 1, name: "All flags" }).waitFor();
      expect(await page.getByLabel("Type").inputValue()).toBe("release");
      await page
        .getByRole("group", { name: "Pages below the table" })
        .getByText(new RegExp(`· ${releaseCount} flags`))
        .waitFor();

      // Bulk: every flag of the page ticked, tagged, then archived after asking.
      table = await flagsOf();
      await table.getByRole("checkbox", { name: "Select every flag on this page" }).check();
      const bulk = page.getByRole("group", { name: "Bulk actions" });
      await bulk.getByText("2 selected").waitFor();
      await bulk.getByLabel("Tag").selectOption(`simple:${prefix}`);
      await bulk.getByRole("button", { name: "Add tag" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `2 flags tagged simple:${prefix}` })
        .waitFor();
      const tags = (await (await vexil.api(`/api/admin/features/${second}/tags`)).json()) as { tags: { type: string; value: string }[] };
      expect(tags.tags).toContainEqual({ type: "simple", value: prefix });
      await expectAccessible(page, `bulk actions (${theme}, ${viewport})`);
      await table.getByRole("checkbox", { name: "Select every flag on this page" }).check();
      const archiveQuestion = acceptNextDialog(page);
      await bulk.getByRole("button", { name: "Archive" }).click();
      expect(await archiveQuestion).toBe("Archive 2 flags? They can be revived from the archive.");
      await page.getByRole("status").filter({ hasText: "2 flags archived" }).waitFor();
      await page.getByText("No flag matches these filters.").waitFor();
      const archive = (await (await vexil.api(`/api/admin/archive/features/${project}`)).json()) as { features: { name: string }[] };
      expect(archive.features.map((f) => f.name)).toEqual(expect.arrayContaining([first, second]));
      await page.close();
    },
    240_000,
  );
});
