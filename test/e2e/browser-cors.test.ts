/**
 * Browser SDKs on another origin, in a real Chromium: the Unleash browser SDK (`unleash-proxy-client`)
 * and a plain OFREP call from a page of another origin get their flags (CORS, preflight answered
 * without a token), while the same page gets nothing from the admin API, cookie or not. In single
 * mode and, where NATS and Redis run, in cluster mode through the gateway.
 */
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { flagAdmin } from "../src/flag-admin.js";
import { clusterAvailable, startTestSystem, type TestSystem } from "../src/harness.js";

// The browser build (UMD, global `unleash`), beside the entry Node resolves.
const sdkBundle = path.join(path.dirname(createRequire(import.meta.url).resolve("unleash-proxy-client")), "main.min.js");
const modes = ["single", ...((await clusterAvailable("CORS through the cluster gateway")) ? ["cluster" as const] : [])] as const;

/** A page of another origin that loads the browser SDK and reports what it got. */
async function appOrigin(vexilUrl: string, frontendToken: string) {
  const sdk = await readFile(sdkBundle, "utf8");
  const page = `<!doctype html><title>app</title><script src="/sdk.js"></script><script>
    const report = (window.report = { sdk: null, ofrep: null, admin: null });
    const client = new unleash.UnleashClient({ url: ${JSON.stringify(`${vexilUrl}/api/frontend`)}, clientKey: ${JSON.stringify(frontendToken)}, appName: "shop", refreshInterval: 0 });
    client.on("ready", () => (report.sdk = client.isEnabled("cors-flag")));
    client.on("error", (e) => (report.sdk = "error: " + (e && e.message)));
    client.start();
    fetch(${JSON.stringify(`${vexilUrl}/ofrep/v1/evaluate/flags/cors-flag`)}, {
      method: "POST",
      headers: { authorization: ${JSON.stringify(frontendToken)}, "content-type": "application/json" },
      body: JSON.stringify({ context: { targetingKey: "user-1" } }),
    }).then((r) => r.json()).then((b) => (report.ofrep = b.value), (e) => (report.ofrep = "error: " + e.message));
    fetch(${JSON.stringify(`${vexilUrl}/api/admin/projects`)}, { credentials: "include" })
      .then((r) => (report.admin = "read " + r.status), (e) => (report.admin = "refused: " + e.message));
  </script>`;
  const server: Server = createServer((req, res) => {
    if (req.url === "/sdk.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(sdk);
    res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    // "localhost" for the app, 127.0.0.1 for Vexil: another origin and another site.
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!chromiumAvailable).each(modes)("browser SDKs on another origin (%s mode)", (mode) => {
  let vexil: TestSystem;
  let browser: Browser;
  let app: Awaited<ReturnType<typeof appOrigin>>;

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem({ mode }), launchChromium()]);
    const flags = flagAdmin((path, init) => vexil.api(path, init));
    await flags.createFeature("cors-flag");
    await flags.addStrategy("cors-flag", "development", { name: "default" });
    await flags.setEnabled("cors-flag", "development", true);
    app = await appOrigin(vexil.url, vexil.tokens.frontend);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await vexil?.stop();
  });

  it("answers the preflight without a token and lets the SDK and OFREP read, never the admin API", async () => {
    const preflight = await fetch(`${vexil.url}/api/frontend`, {
      method: "OPTIONS",
      headers: {
        origin: app.url,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization,unleash-appname",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization,unleash-appname");
    const adminPreflight = await fetch(`${vexil.url}/api/admin/projects`, {
      method: "OPTIONS",
      headers: { origin: app.url, "access-control-request-method": "GET" },
    });
    expect(adminPreflight.headers.get("access-control-allow-origin")).toBeNull();

    const page = await (await browser.newContext()).newPage();
    screenshotOnFailure(page, `browser-cors-${mode}`);
    await page.goto(app.url);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { report: Record<string, unknown> }).report), { timeout: 20_000 })
      .toEqual({ sdk: true, ofrep: true, admin: expect.stringMatching(/^refused: /) });
  }, 60_000);
});
