import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn, signedInPage } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

type StoredRequest = { state: string; comments?: { text: string }[]; schedule?: { scheduledAt: string } };

/** Moves on change requests in a real browser: the reviewer's notice, comment, approve, schedule, reject, and the author's cancel. */
describe.skipIf(!chromiumAvailable)("reviewing change requests in the admin web UI", () => {
  let vexil: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    await vexil.createProject("orders");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  /** A change request, submitted for review through the API, that switches `flag` on in production. */
  async function proposal(project: string, flag: string): Promise<number> {
    const request = await vexil.expectStatus(
      `/api/admin/projects/${project}/environments/production/change-requests`,
      { method: "POST", body: [{ action: "updateEnabled", feature: flag, payload: { enabled: true } }] },
      200,
    );
    await vexil.expectStatus(
      `/api/admin/projects/${project}/change-requests/${request.id}/state`,
      { method: "PUT", body: { state: "In review" } },
      200,
    );
    return request.id as number;
  }

  it.each(["default", "orders"])(
    "in %s a reviewer is told a request waits, comments, approves and schedules it, rejects another, and its author cancels a third",
    async (project) => {
      const flag = `${project}-express-shipping`;
      await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: flag } }, 201);
      await vexil.expectStatus(
        `/api/admin/projects/${project}/environments/production/change-requests/config`,
        { method: "PUT", body: { changeRequestsEnabled: true, requiredApprovals: 1 } },
        204,
      );
      const stored = async (id: number) =>
        (await (await vexil.api(`/api/admin/projects/${project}/change-requests/${id}`)).json()) as StoredRequest;
      const page = await signedInPage(vexil, browser, `admin-ui-change-review-${project}`);
      const open = async (id: number) => {
        await page.goto(`${vexil.url}/projects/${project}/change-requests/${id}`);
        await page.getByRole("heading", { name: `Change request #${id}` }).waitFor();
      };

      const first = await proposal(project, flag);
      // Whatever screen the reviewer is on, a notice says the request waits for them and links to it.
      await page.goto(`${vexil.url}/projects`);
      const notice = page.getByRole("status").filter({ hasText: "waits for your review" });
      await notice.getByRole("link", { name: new RegExp(`^#${first}\\b.* in ${project} \\(production\\)$`) }).click();
      await page.getByRole("heading", { name: `Change request #${first}` }).waitFor();
      await expectAccessible(page, "the notice of a change request waiting for review");
      await page.getByLabel("Comment (optional)").fill("Ships with the winter release.");
      await page.getByRole("button", { name: "Add comment" }).click();
      await page.getByRole("region", { name: "Comments" }).getByText("Ships with the winter release.").waitFor();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.locator(".badge", { hasText: "Approved" }).waitFor();
      // Reviewed: the notice goes.
      await notice.waitFor({ state: "detached" });

      await page.getByLabel("Apply at").fill("2030-01-15T09:30");
      await page.getByLabel("Comment (optional)").fill("After the code freeze.");
      await page.getByRole("button", { name: "Schedule" }).click();
      await page.getByRole("status").filter({ hasText: "Scheduled for" }).waitFor();
      await expectAccessible(page, "a scheduled change request");
      const scheduled = await stored(first);
      expect(scheduled.state).toBe("Scheduled");
      expect(new Date(scheduled.schedule!.scheduledAt).getTime()).toBe(new Date("2030-01-15T09:30").getTime());
      expect(scheduled.comments?.map((c) => c.text)).toEqual(
        expect.arrayContaining(["Ships with the winter release.", "After the code freeze."]),
      );

      // Only the author may cancel: the reviewer is not offered it.
      expect(await page.getByRole("button", { name: "Cancel request" }).count()).toBe(0);

      const second = await proposal(project, flag);
      await open(second);
      await page.getByLabel("Comment (optional)").fill("Not before the load test.");
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Reject" }).click();
      await page.locator(".badge", { hasText: "Rejected" }).waitFor();
      expect(await stored(second)).toMatchObject({ state: "Rejected", comments: [{ text: "Not before the load test." }] });

      // The author's own request, proposed from the flags table: cancelling it asks first.
      await page.goto(`${vexil.url}/projects/${project}`);
      await page.getByRole("switch", { name: `${flag} in production (through a change request)` }).click();
      await page.getByRole("link", { name: /change request #\d+/ }).click();
      await page.getByRole("button", { name: "Submit for review" }).click();
      await page.getByText("You wrote this request: another person must approve it.").waitFor();
      const third = Number(/change-requests\/(\d+)$/.exec(page.url())![1]);
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Cancel request" }).click();
      await page.locator(".badge", { hasText: "Cancelled" }).waitFor();
      expect((await stored(third)).state).toBe("Cancelled");
      expect((await flagIn(vexil, project, flag)).production).toBe(false);
    },
    90_000,
  );
});
