// Regenerates the README screenshot of the flag page: `cd test && npx tsx --conditions=vexil-source scripts/admin-ui-screenshot.ts ../docs/admin-ui-flag-page.png`
import { launchChromium } from "../src/browser.js";
import { startTestSystem } from "../src/harness.js";

const vexil = await startTestSystem();
const browser = await launchChromium();
try {
  await vexil.createProject("web-shop", { name: "Web shop" });
  await vexil.api("/api/admin/projects/web-shop/features", {
    method: "POST",
    body: { name: "new-checkout", type: "release", description: "The one-page checkout" },
  });
  const base = "/api/admin/projects/web-shop/features/new-checkout/environments";
  await vexil.api(`${base}/development/strategies`, {
    method: "POST",
    body: {
      name: "flexibleRollout",
      parameters: { rollout: "40", stickiness: "default", groupId: "new-checkout" },
      constraints: [
        { contextName: "region", operator: "STR_STARTS_WITH", values: ["EU"], caseInsensitive: true },
        { contextName: "appVersion", operator: "SEMVER_GT", value: "2.3.0" },
      ],
      variants: [
        { name: "blue", weight: 300, weightType: "fix", stickiness: "default", payload: { type: "string", value: "sky" } },
        { name: "green", weight: 700, weightType: "variable", stickiness: "default" },
      ],
    },
  });
  await vexil.api(`${base}/development/strategies`, {
    method: "POST",
    body: { name: "default", title: "Staff", constraints: [{ contextName: "userId", operator: "IN", values: ["ana", "bo"] }] },
  });
  await vexil.api(`${base}/development/on`, { method: "POST" });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1560 } });
  await page.goto(vexil.url);
  await page.getByLabel("Username or email").fill("admin");
  await page.getByLabel("Password").fill("unleash4all");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Projects" }).waitFor();
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${vexil.url}/projects/web-shop/features/new-checkout`);
  await page.getByText("region STR_STARTS_WITH EU").waitFor();
  await page.getByRole("button", { name: "Edit strategy 1 in development" }).click();
  await page.getByRole("heading", { name: "Edit strategy in development" }).waitFor();
  await page.screenshot({ path: process.argv[2]! });
} finally {
  await browser.close();
  await vexil.stop();
}
