/**
 * The web's own attacks, in a real Chromium against the built server: a page on another port of the
 * same host (same site, so SameSite=Lax lets the session cookie through) tries to change a flag with
 * the signed-in admin's cookie and to frame the signed-in UI; the UI and the API documentation work
 * under the enforced Content-Security-Policy without a single violation.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn, newPassword, signIn, switchOn } from "../src/admin-ui.js";
import { chromiumAvailable, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";

/** Another origin on the same host: serves whatever page a test puts at a path. */
async function otherOrigin(host: string) {
  const pages = new Map<string, string>();
  const referers = new Map<string, string | undefined>();
  const server: Server = createServer((req, res) => {
    referers.set(req.url ?? "", req.headers.referer);
    const page = pages.get(req.url ?? "");
    res.writeHead(page ? 200 : 404, { "content-type": "text/html" }).end(page ?? "");
  });
  server.listen(0, host);
  await once(server, "listening");
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    put: (path: string, html: string) => pages.set(path, html),
    /** The Referer the last request for `path` carried, once one came. */
    refererOf: (path: string) => (referers.has(path) ? { referer: referers.get(path) } : undefined),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Collects the page's CSP violations and console errors from its first script on. */
async function watchPolicy(page: Page): Promise<() => Promise<string[]>> {
  const errors: string[] = [];
  page.on("console", (message) => {
    // Signed out, the app's first question (who is signed in?) is answered 401, which Chromium logs.
    if (message.type() === "error" && !message.text().includes("status of 401")) errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    const seen: string[] = ((window as unknown as { cspViolations: string[] }).cspViolations = []);
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.effectiveDirective} refused ${event.blockedURI || "inline"} in ${event.sourceFile}:${event.lineNumber}`),
    );
  });
  return async () => [...errors, ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations))];
}

describe.skipIf(!chromiumAvailable)("the web's own attacks, in a real browser", () => {
  let vexil: TestSystem;
  let browser: Browser;
  let attacker: Awaited<ReturnType<typeof otherOrigin>>;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
    attacker = await otherOrigin(new URL(vexil.url).hostname);
  }, 120_000);
  afterAll(async () => {
    await attacker?.close();
    await browser?.close();
    await vexil?.stop();
  });

  /** A browser page signed in through the sign-in screen as a new admin user. */
  async function signedIn(name: string): Promise<Page> {
    await vexil.expectStatus(
      "/api/admin/user-admin",
      { method: "POST", body: { username: name, rootRole: "Admin", password: newPassword } },
      201,
    );
    const page = await (await browser.newContext()).newPage();
    screenshotOnFailure(page, name);
    await page.goto(vexil.url);
    await signIn(page, name, newPassword);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    return page;
  }

  it("refuses a form and a script on another port of the same host that switch a flag with the admin's cookie; the UI still switches it", async () => {
    const flag = "csrf-target";
    await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: flag } }, 201);
    const page = await signedIn("csrf-admin");
    const target = `${vexil.url}/api/admin/projects/default/features/${flag}/environments/production/on`;

    // A form with no fields, as the bodyless POSTs take: the browser sends the Lax cookie (same site).
    attacker.put("/form.html", `<form method="post" action="${target}"></form><script>document.forms[0].submit()</script>`);
    // A form that smuggles JSON-looking text as text/plain.
    attacker.put(
      "/text-form.html",
      `<form method="post" enctype="text/plain" action="${target}"><input name='{"a":"' value='b"}'></form><script>document.forms[0].submit()</script>`,
    );
    for (const [form, status, name] of [
      ["/form.html", 403, "NoAccessError"],
      // A body that is not JSON is refused before anything looks at who sent it.
      ["/text-form.html", 415, "ContentTypeerror"],
    ] as const) {
      const answered = page.waitForResponse((res) => res.url() === target);
      await page.goto(`${attacker.url}${form}`);
      const res = await answered;
      expect(res.status(), form).toBe(status);
      expect(((await res.json()) as { name: string }).name).toBe(name);
      expect(res.request().headers().cookie ?? (await res.request().allHeaders()).cookie, "the cookie was sent").toContain(
        "vexil-session=",
      );
    }
    // A script that fires and forgets (no-cors: it cannot read the answer, and needs none).
    attacker.put(
      "/fetch.html",
      `<script>fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", credentials: "include" }).then(() => document.title = "sent")</script>`,
    );
    const answered = page.waitForResponse((res) => res.url() === target);
    await page.goto(`${attacker.url}/fetch.html`);
    expect((await answered).status()).toBe(403);
    expect((await flagIn(vexil, "default", flag)).production).toBe(false);

    // The UI's own bodyless POST goes through.
    await page.goto(`${vexil.url}/projects/default`);
    await switchOn(page.getByRole("switch", { name: `${flag} in production` }));
    expect((await flagIn(vexil, "default", flag)).production).toBe(true);
  }, 90_000);

  it("loads the sign-in screen, the signed-in screens and /docs under the enforced CSP without a violation", async () => {
    const page = await (await browser.newContext()).newPage();
    screenshotOnFailure(page, "csp-screens");
    const problems = await watchPolicy(page);
    const res = await page.goto(vexil.url);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    // The sign-in screen, public, never tells the built-in admin's first-start password.
    expect(await page.content()).not.toContain("unleash4all");
    expect(await problems()).toEqual([]);

    await vexil.expectStatus(
      "/api/admin/user-admin",
      { method: "POST", body: { username: "csp-admin", rootRole: "Admin", password: newPassword } },
      201,
    );
    await signIn(page, "csp-admin", newPassword);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await vexil.expectStatus("/api/admin/projects/default/features", { method: "POST", body: { name: "csp-flag" } }, 201);
    for (const [path, heading] of [
      ["/projects/default", "Default"],
      ["/projects/default/features/csp-flag", "csp-flag"],
      ["/events", "Event log"],
      ["/playground", "Playground"],
      ["/account", "Your account"],
    ] as const) {
      await page.goto(`${vexil.url}${path}`);
      await page.getByRole("heading", { name: heading, exact: true }).first().waitFor();
      expect(await problems(), path).toEqual([]);
    }

    await page.goto(`${vexil.url}/docs`);
    await page.locator(".information-container .title", { hasText: "Vexil API" }).waitFor({ timeout: 15_000 });
    await page.locator(".opblock-tag", { hasText: /^strategies/ }).click();
    await page.locator(".opblock-summary-path").first().waitFor();
    expect(await problems(), "/docs").toEqual([]);
  }, 90_000);

  it("sends the same headers on the UI, /docs, the admin API and the SDK API, and no Referer to other sites", async () => {
    for (const [path, token] of [
      ["/", null],
      ["/docs", null],
      ["/projects/default", null],
      ["/api/admin/projects", vexil.tokens.admin],
      ["/api/client/features", vexil.tokens.client],
      ["/api/frontend", vexil.tokens.frontend],
    ] as const) {
      const res = await vexil.api(path, { token });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("same-origin");
    }

    // A link from a signed-in page to another site: the browser follows it without telling where from.
    const page = await signedIn("referrer-admin");
    attacker.put("/landing.html", "<h1>Elsewhere</h1>");
    await page.evaluate((href) => {
      const link = Object.assign(document.createElement("a"), { href, textContent: "out" });
      document.body.append(link);
      link.click();
    }, `${attacker.url}/landing.html`);
    await page.getByRole("heading", { name: "Elsewhere" }).waitFor();
    expect(attacker.refererOf("/landing.html")).toEqual({ referer: undefined });
  }, 60_000);

  it("refuses to render the signed-in UI inside another site's frame", async () => {
    const page = await signedIn("frame-admin");
    const problems = await watchPolicy(page);
    attacker.put("/frame.html", `<h1>Win a prize</h1><iframe src="${vexil.url}/projects/default" width="800" height="600"></iframe>`);
    const refused = page.waitForEvent("console", (message) => message.text().includes("frame-ancestors"));
    await page.goto(`${attacker.url}/frame.html`);
    await refused;
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // What the frame holds is the browser's error page, not the app.
    expect(await frame!.evaluate(() => document.querySelector("#root"))).toBeNull();
    expect(await frame!.evaluate(() => document.body?.innerText ?? "")).not.toContain("Projects");
    expect((await problems()).some((problem) => problem.includes("frame-ancestors"))).toBe(true);
  }, 60_000);
});
