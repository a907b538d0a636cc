import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagIn as flagState, newPassword, signedInPage as signedInAs, signIn, switchOn } from "../src/admin-ui.js";
import { chromiumAvailable, expectAccessible, launchChromium, screenshotOnFailure } from "../src/browser.js";
import { startTestSystem, type TestSystem } from "../src/harness.js";
import { sdkPool, until } from "../src/sdks.js";

describe.skipIf(!chromiumAvailable)("the admin web UI in a real browser", () => {
  let vexil: TestSystem;
  let browser: Browser;

  const signedInPage = (name: string) => signedInAs(vexil, browser, name);
  const flagIn = (project: string, flag: string) => flagState(vexil, project, flag);

  beforeAll(async () => {
    [vexil, browser] = await Promise.all([startTestSystem(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
  });

  it("signs in with the first-start password, warns until it is changed, deep-links and signs out", async () => {
    const page = await browser.newPage();
    screenshotOnFailure(page, "admin-ui-sign-in");
    const failed: string[] = [];
    page.on("requestfailed", (request) => {
      // The page closes its event stream when it signs out or a session ends, which aborts that request.
      const closedStream = request.url().endsWith("/api/admin/event-stream") && request.failure()?.errorText === "net::ERR_ABORTED";
      if (!closedStream) failed.push(`${request.url()} ${request.failure()?.errorText}`);
    });

    // A deep link opens the app; without a session it asks for a sign-in first.
    await page.goto(`${vexil.url}/account`);
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    await expectAccessible(page, "the sign-in screen");

    await signIn(page, "admin", "wrong-password");
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The combination of password and username you provided is invalid");

    await signIn(page, "admin", "unleash4all");
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    const banner = page.getByRole("status").filter({ hasText: "first-start password" });
    await banner.waitFor();
    await expectAccessible(page, "the account screen");

    // The API's own words, next to the field that caused them.
    await page.getByLabel("Current password").fill("unleash4all");
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the new password").fill("short");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.locator(".field", { hasText: "New password" }).getByRole("alert").textContent()).resolves.toBe(
      "Password must be at least 10 characters long",
    );

    await page.getByLabel("New password", { exact: true }).fill(newPassword);
    await page.getByLabel("Repeat the new password").fill(newPassword);
    await page.getByRole("button", { name: "Change password" }).click();
    // The session that changed the password stays signed in, and the first-start warning goes.
    await page.getByText("Password changed.").waitFor();
    await expect.poll(() => banner.count()).toBe(0);

    // Reload keeps the session (cookie); the home page lists the projects.
    await page.goto(`${vexil.url}/`);
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await page.getByRole("link", { name: "Default" }).waitFor();
    await expectAccessible(page, "the projects screen");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Vexil" }).waitFor();
    expect(
      (
        await vexil.api("/api/admin/user", {
          token: null,
          headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
        })
      ).status,
    ).toBe(401);
    expect(failed).toEqual([]);
  }, 90_000);

  it("creates a project and a flag, switches it per environment in place, and archives, revives and deletes it", async () => {
    const page = await signedInPage("admin-ui-projects");
    await page.goto(`${vexil.url}/projects`);
    await page.getByRole("button", { name: "New project" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Checkout");
    await page.getByLabel("Id").fill("checkout");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "Checkout" }).waitFor();

    // A naming pattern: the new-flag form says when a name does not fit, before asking the server.
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("Naming pattern").fill("checkout-[a-z-]+");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await switchOn(page.getByRole("switch", { name: "Require change requests in production" }));
    await expectAccessible(page, "the project settings");

    await page.getByRole("link", { name: "Flags", exact: true }).click();
    await page.getByText("No flags yet").waitFor();
    await page.getByRole("button", { name: "New flag" }).click();
    await page.getByLabel("Flag name").fill("NewButton");
    await page.getByText("Does not match the project's naming pattern checkout-[a-z-]+").waitFor();
    await page.getByRole("button", { name: "Create flag" }).click();
    // The server refuses it too, and its words appear next to the field.
    await page
      .locator(".field", { hasText: "Flag name" })
      .getByRole("alert")
      .filter({ hasText: "The flag name does not match the pattern." })
      .waitFor();
    await page.getByLabel("Flag name").fill("checkout-new-button");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.waitForURL(/\/projects\/checkout\/features\/checkout-new-button$/);

    await page.goto(`${vexil.url}/projects/checkout`);
    const development = page.getByRole("switch", { name: "checkout-new-button in development" });
    await switchOn(development);
    await expect.poll(async () => (await flagIn("checkout", "checkout-new-button")).development).toBe(true);
    await expectAccessible(page, "the flags table");

    // Production requires change requests: the switch proposes the change and the flag stays off.
    await page.getByRole("switch", { name: "checkout-new-button in production (through a change request)" }).click();
    await page.getByRole("link", { name: /change request #\d+/ }).waitFor();
    expect((await flagIn("checkout", "checkout-new-button")).production).toBe(false);

    // Archive (through the API), then revive and delete from the archive tab.
    expect((await vexil.api("/api/admin/projects/checkout/features/checkout-new-button", { method: "DELETE" })).status).toBe(202);
    await page.getByRole("link", { name: "Archive" }).click();
    // Reviving says first that the flag comes back off everywhere.
    const reviveQuestion = new Promise<string>((resolve) =>
      page.once("dialog", (dialog) => {
        resolve(dialog.message());
        void dialog.accept();
      }),
    );
    await page.getByRole("button", { name: "Revive checkout-new-button" }).click();
    expect(await reviveQuestion).toContain("off in every environment");
    await page.getByText("No archived flags").waitFor();
    expect((await vexil.api("/api/admin/projects/checkout/features/checkout-new-button")).status).toBe(200);
    expect((await vexil.api("/api/admin/projects/checkout/features/checkout-new-button", { method: "DELETE" })).status).toBe(202);
    await page.reload();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete checkout-new-button" }).click();
    await page.getByText("No archived flags").waitFor();
    expect((await vexil.api("/api/admin/archive/features/checkout")).status).toBe(200);
    expect((await (await vexil.api("/api/admin/archive/features/checkout")).json()).features).toEqual([]);
  }, 90_000);

  it("builds a gradual rollout with two constraints and strategy variants that the real SDKs then answer with", async () => {
    const page = await signedInPage("admin-ui-flag");
    await page.getByRole("button", { name: "New project" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Shop");
    await page.getByLabel("Id").fill("shop");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("button", { name: "New flag" }).click();
    await page.getByLabel("Flag name").fill("new-checkout");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name: "new-checkout" }).waitFor();

    await page.getByRole("button", { name: "Add strategy in development" }).click();
    const editor = page.getByRole("form", { name: "Add strategy in development" });
    await editor.getByLabel("Rollout").fill("100");
    await editor.getByRole("button", { name: "Add constraint" }).click();
    const first = editor.getByRole("group", { name: "Constraint 1" });
    await first.getByLabel("Context field").fill("userId");
    await first.getByLabel("Values (one per line)").fill("alice\nbob");
    await editor.getByRole("button", { name: "Add constraint" }).click();
    const second = editor.getByRole("group", { name: "Constraint 2" });
    await second.getByLabel("Context field").fill("region");
    await second.getByLabel("Operator").selectOption("STR_STARTS_WITH");
    await second.getByLabel("Values (one per line)").fill("EU");
    await second.getByLabel("Ignore case").check();

    await editor.getByRole("button", { name: "Add variant" }).click();
    const blue = editor.getByRole("group", { name: "Variant 1" });
    await blue.getByLabel("Variant name").fill("blue");
    await blue.getByLabel("Weight").selectOption("fix");
    await blue.getByLabel("Fixed share (%)").fill("30");
    await blue.getByLabel("Payload type").selectOption("string");
    await blue.getByLabel("Payload", { exact: true }).fill("sky");
    await editor.getByRole("button", { name: "Add variant" }).click();
    const green = editor.getByRole("group", { name: "Variant 2" });
    await green.getByLabel("Variant name").fill("green");
    // The variable variant shows its share live: what the fixed one leaves.
    await expect(green.getByLabel("Share of green").textContent()).resolves.toBe("70%");
    await expectAccessible(page, "the strategy editor");
    await editor.getByRole("button", { name: "Save strategy" }).click();
    await page.getByText("userId IN alice, bob").waitFor();

    await switchOn(page.getByRole("switch", { name: "new-checkout in development" }));
    await expectAccessible(page, "the flag page");

    const stored = (await (await vexil.api("/api/admin/projects/shop/features/new-checkout/environments/development")).json()) as {
      strategies: {
        name: string;
        parameters: Record<string, string>;
        constraints: unknown[];
        variants: { name: string; weight: number }[];
      }[];
    };
    expect(stored.strategies).toHaveLength(1);
    expect(stored.strategies[0]).toMatchObject({
      name: "flexibleRollout",
      parameters: { rollout: "100", stickiness: "default", groupId: "new-checkout" },
      constraints: [
        { contextName: "userId", operator: "IN", values: ["alice", "bob"] },
        { contextName: "region", operator: "STR_STARTS_WITH", values: ["EU"], caseInsensitive: true },
      ],
    });
    expect(stored.strategies[0]!.variants.map((v) => [v.name, v.weight])).toEqual([
      ["blue", 300],
      ["green", 700],
    ]);

    // The real server SDK and the frontend API agree with what the screen built.
    const sdks = sdkPool();
    try {
      const unleash = await sdks.serverSdk({ url: vexil.url, dataDir: vexil.dataDir }, vexil.tokens.client, "polling");
      await until(
        () => unleash.isEnabled("new-checkout", { userId: "alice", properties: { region: "eu" } }),
        10_000,
        "the SDK sees the flag on",
      );
      expect(unleash.isEnabled("new-checkout", { userId: "alice", properties: { region: "us" } })).toBe(false);
      expect(unleash.isEnabled("new-checkout", { userId: "carol", properties: { region: "eu-west" } })).toBe(false);
      const sdkVariant = unleash.getVariant("new-checkout", { userId: "alice", properties: { region: "eu-west" } });
      expect(["blue", "green"]).toContain(sdkVariant.name);

      const frontend = async (context: Record<string, unknown>) => {
        const res = await vexil.api("/api/frontend", { method: "POST", token: vexil.tokens.frontend, body: { context } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { toggles: { name: string; variant: { name: string; payload?: { value: string } } }[] }).toggles.find(
          (t) => t.name === "new-checkout",
        );
      };
      const alice = await frontend({ userId: "alice", properties: { region: "Eu-North" } });
      expect(alice?.variant.name).toBe(sdkVariant.name);
      if (alice?.variant.name === "blue") expect(alice.variant.payload?.value).toBe("sky");
      expect(await frontend({ userId: "bob", properties: { region: "us" } })).toBeUndefined();
      expect(await frontend({ userId: "carol", properties: { region: "eu-west" } })).toBeUndefined();
    } finally {
      sdks.stopAll();
    }
  }, 120_000);

  it("takes a change in a protected environment through a second person's approval to the SDK, and a revoked token to 401", async () => {
    await vexil.createProject("payments");
    expect((await vexil.api("/api/admin/projects/payments/features", { method: "POST", body: { name: "instant-payouts" } })).status).toBe(
      201,
    );
    const protect = await vexil.api("/api/admin/projects/payments/environments/production/change-requests/config", {
      method: "PUT",
      body: { changeRequestsEnabled: true, requiredApprovals: 1 },
    });
    expect(protect.status).toBe(204);

    // The author proposes switching production on, from the flags table, and submits it.
    const author = await signedInPage("admin-ui-change-author");
    await author.goto(`${vexil.url}/projects/payments`);
    await author.getByRole("switch", { name: "instant-payouts in production (through a change request)" }).click();
    await author.getByRole("link", { name: /change request #\d+/ }).click();
    await author.getByRole("heading", { name: /Change request #\d+/ }).waitFor();
    await author.getByText('"enabled": true').waitFor();
    await author.getByRole("button", { name: "Submit for review" }).click();
    await author.getByText("You wrote this request: another person must approve it.").waitFor();
    const requestUrl = author.url();

    // A second person approves and applies; the change reaches the SDK.
    const reviewer = await signedInPage("admin-ui-change-reviewer");
    await reviewer.goto(requestUrl);
    await reviewer.getByRole("button", { name: "Approve" }).click();
    await reviewer.getByRole("button", { name: "Apply changes" }).click();
    await reviewer.locator(".badge", { hasText: "Applied" }).waitFor();
    await expectAccessible(reviewer, "an applied change request");
    const productionClient = await vexil.createApiToken({ type: "client", projects: ["payments"], environment: "production" });
    const sdks = sdkPool();
    try {
      const unleash = await sdks.serverSdk({ url: vexil.url, dataDir: vexil.dataDir }, productionClient, "polling");
      await until(() => unleash.isEnabled("instant-payouts"), 10_000, "the SDK sees the approved change");
    } finally {
      sdks.stopAll();
    }

    // A token created in the screen works until it is revoked there.
    await reviewer.goto(`${vexil.url}/access/api-tokens`);
    await reviewer.getByLabel("Token name").fill("checkout-service");
    await reviewer.getByRole("button", { name: "Create token" }).click();
    const secret = (await reviewer.getByRole("status").getByLabel("Secret").textContent())!;
    expect(secret).toMatch(/^\*:development\./);
    await reviewer.getByRole("button", { name: "Done" }).click();
    expect(await reviewer.getByText(secret).count()).toBe(0);
    const features = () => vexil.api("/api/client/features", { token: secret });
    expect((await features()).status).toBe(200);
    await expectAccessible(reviewer, "the API tokens screen");
    reviewer.once("dialog", (dialog) => void dialog.accept());
    await reviewer.getByRole("button", { name: "Revoke checkout-service" }).click();
    await reviewer.getByRole("button", { name: "Revoke checkout-service" }).waitFor({ state: "detached" });
    await expect.poll(async () => (await features()).status, { timeout: 10_000 }).toBe(401);

    // People: a user, an invite link, a service account, and a personal access token that works.
    await reviewer.getByRole("link", { name: "Users" }).click();
    await reviewer.getByLabel("Username").fill("grace");
    await reviewer.getByLabel("Root role").selectOption({ label: "Editor" });
    await reviewer.getByRole("button", { name: "Create user" }).click();
    await reviewer.getByRole("button", { name: "Delete grace" }).waitFor();
    await reviewer.getByLabel("Link name").fill("new-team");
    await reviewer.getByRole("button", { name: "Create invite link" }).click();
    await reviewer.getByRole("switch", { name: "Invite link new-team usable" }).waitFor();
    await expectAccessible(reviewer, "the users screen");
    await reviewer.getByRole("link", { name: "Service accounts" }).click();
    await reviewer.getByLabel("Username").fill("ci-bot");
    await reviewer.getByRole("button", { name: "Create service account" }).click();
    await reviewer.getByRole("button", { name: "Delete ci-bot" }).waitFor();
    await reviewer.getByRole("link", { name: "Account", exact: true }).click();
    await reviewer.getByLabel("Token description").fill("laptop script");
    await reviewer.getByRole("button", { name: "Create token" }).click();
    const pat = (await reviewer.getByRole("status").getByLabel("Secret").textContent())!;
    expect((await vexil.api("/api/admin/user", { token: pat })).status).toBe(200);
  }, 120_000);

  it.each(["default", "catalog"])(
    "on one flag's page in %s: impression data, lifecycle, history, clone, tags, a dependency and archive, each through the API",
    async (project) => {
      if (project !== "default") await vexil.createProject(project);
      const flag = `${project}-banner`;
      const base = `/api/admin/projects/${project}/features`;
      expect((await vexil.api(base, { method: "POST", body: { name: flag } })).status).toBe(201);
      const rollout = { name: "flexibleRollout", parameters: { rollout: "40", stickiness: "default", groupId: flag } };
      expect((await vexil.api(`${base}/${flag}/environments/development/strategies`, { method: "POST", body: rollout })).status).toBe(200);
      const stored = async (name: string) =>
        (await (await vexil.api(`${base}/${name}`)).json()) as {
          impressionData: boolean;
          lifecycle?: { stage: string };
          dependencies?: unknown[];
          environments: { name: string; strategies: { parameters: Record<string, string> }[] }[];
        };

      const page = await signedInPage(`admin-ui-flag-details-${project}`);
      await page.goto(`${vexil.url}/projects/${project}/features/${flag}`);
      await page.getByRole("heading", { name: flag }).waitFor();

      // The history lists what the API did to this flag, with the environment it touched.
      const history = page.getByRole("table", { name: "Events of this flag" });
      await history.getByRole("row", { name: /feature-strategy-add development/ }).waitFor();
      await history.getByRole("cell", { name: "feature-created" }).waitFor();

      await switchOn(page.getByLabel("Emit impression data"));
      await expect.poll(async () => (await stored(flag)).impressionData).toBe(true);

      const stages = async () => ((await (await vexil.api(`${base}/${flag}/lifecycle`)).json()) as { stage: string }[]).map((s) => s.stage);
      await page.getByLabel("Code after completion").selectOption("discarded");
      await page.getByRole("button", { name: "Mark completed" }).click();
      await page.getByText(/lifecycle completed/).waitFor();
      expect(await stages()).toContain("completed");
      await expectAccessible(page, "a completed flag's page");
      await page.getByRole("button", { name: "Reopen (not completed)" }).click();
      await page.getByRole("button", { name: "Mark completed" }).waitFor();
      expect((await stored(flag)).lifecycle?.stage).not.toBe("completed");

      // The copy keeps the strategies, with its own group id so its users are bucketed afresh.
      await page.getByRole("button", { name: "Clone" }).click();
      await page.getByLabel("Name of the copy").fill(`${flag}-copy`);
      await page.getByRole("button", { name: "Clone with strategies" }).click();
      await page.getByRole("heading", { name: `${flag}-copy` }).waitFor();
      const copy = (await stored(`${flag}-copy`)).environments.find((e) => e.name === "development");
      expect(copy?.strategies.map((s) => s.parameters)).toEqual([{ rollout: "40", stickiness: "default", groupId: `${flag}-copy` }]);

      // On the copy: a tag (removed after asking), the original as its parent, then archived after asking.
      const tags = async () => ((await (await vexil.api(`/api/admin/features/${flag}-copy/tags`)).json()) as { tags: unknown[] }).tags;
      await page.getByLabel("Tag type").selectOption("simple");
      await page.getByLabel("Tag value").fill("winter");
      await page.getByRole("button", { name: "Add tag" }).click();
      await expect.poll(tags).toEqual([{ type: "simple", value: "winter" }]);
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Remove tag simple: winter" }).click();
      await expect.poll(tags).toEqual([]);
      await page.getByLabel("Parent flag").fill(flag);
      await page.getByRole("button", { name: "Add dependency" }).click();
      await page.getByRole("button", { name: `Remove dependency on ${flag}` }).waitFor();
      expect((await stored(`${flag}-copy`)).dependencies).toEqual([expect.objectContaining({ feature: flag })]);
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Archive", exact: true }).click();
      await page.waitForURL(/\/archive$/);
      const archived = (await (await vexil.api(`/api/admin/archive/features/${project}`)).json()) as { features: { name: string }[] };
      expect(archived.features.map((f) => f.name)).toContain(`${flag}-copy`);
    },
    90_000,
  );

  it("manages segments, context fields, tag types, strategy types, integrations and signal endpoints, and reads the event log and the applications", async () => {
    const page = await signedInPage("admin-ui-configure");
    await page.getByRole("link", { name: "Context" }).click();
    await page.getByLabel("Field name").fill("tenant");
    for (const [index, value] of ["acme", "globex"].entries()) {
      await page.getByRole("button", { name: "Add legal value" }).click();
      await page
        .getByRole("group", { name: `Legal value ${index + 1}` })
        .getByLabel("Value", { exact: true })
        .fill(value);
    }
    await page.getByRole("button", { name: "Create context field" }).click();
    await page.getByRole("button", { name: "Delete tenant" }).waitFor();
    await page.getByLabel("Field name").fill("bad name");
    await page.getByRole("button", { name: "Create context field" }).click();
    await page.getByText("Must be URL friendly: letters, digits and . _ ~ -").waitFor();
    await expectAccessible(page, "the context fields screen");

    await page.getByRole("link", { name: "Segments" }).click();
    await page.getByRole("button", { name: "New segment" }).click();
    await page.getByLabel("Segment name").fill("big-tenants");
    await page.getByRole("button", { name: "Add constraint" }).click();
    await page.getByLabel("Context field").fill("tenant");
    await page.getByLabel("Values (one per line)").fill("acme");
    await page.getByRole("button", { name: "Save segment" }).click();
    await page.getByRole("cell", { name: "tenant IN acme" }).waitFor();
    await expectAccessible(page, "the segments screen");

    await page.getByRole("link", { name: "Tag types" }).click();
    await page.getByLabel("Tag type name").fill("team");
    await page.getByRole("button", { name: "Create tag type" }).click();
    await page.getByRole("button", { name: "Delete team" }).waitFor();

    await page.getByRole("link", { name: "Strategy types" }).click();
    await page.getByLabel("Strategy name").fill("byTenant");
    await page.getByRole("button", { name: "Add parameter" }).click();
    await page.getByLabel("Parameter name").fill("tenants");
    await page.getByLabel("Parameter type").selectOption("list");
    await page.getByRole("button", { name: "Create strategy type" }).click();
    await page.getByRole("button", { name: "Delete byTenant" }).waitFor();
    await expectAccessible(page, "the strategy types screen");

    const segments = (await (await vexil.api("/api/admin/segments")).json()) as { segments: { name: string; constraints: unknown[] }[] };
    expect(segments.segments.find((s) => s.name === "big-tenants")?.constraints).toEqual([
      { contextName: "tenant", operator: "IN", values: ["acme"] },
    ]);

    // A webhook: its URL is sensitive, so it comes back masked and stays stored when left as it is.
    await page.getByRole("link", { name: "Integrations" }).click();
    await page.getByRole("button", { name: "New integration" }).click();
    await page.getByLabel("Provider").selectOption({ label: "Webhook" });
    await page.getByLabel("Webhook URL").fill("https://hooks.example.com/vexil");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Edit Webhook", exact: true }).waitFor();
    const addons = (await (await vexil.api("/api/admin/addons")).json()) as { addons: { id: number; parameters: { url: string } }[] };
    const webhook = addons.addons.at(-1)!;
    expect(webhook.parameters.url).toBe("*****");
    await page.getByRole("button", { name: "Edit Webhook", exact: true }).click();
    await page.getByText("Stored; type to replace it.").waitFor();
    await expectAccessible(page, "the integration form");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Deliveries of Webhook", exact: true }).click();
    await page.getByText("Nothing delivered yet.").waitFor();

    // A signal endpoint with a token for one sender; what it sends shows up under the endpoint.
    await page.getByRole("link", { name: "Signals" }).click();
    await page.getByLabel("Endpoint name").fill("deploys");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.getByLabel("New token for deploys").fill("ci");
    await page.getByRole("button", { name: "Create token" }).click();
    const signalToken = (await page.getByRole("status").getByLabel("Secret").textContent())!;
    const sent = await vexil.api("/api/signal-endpoint/deploys", {
      method: "POST",
      token: `Bearer ${signalToken}`,
      body: { service: "checkout" },
    });
    expect(sent.ok).toBe(true);
    await expectAccessible(page, "the signal endpoints screen");
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByText("Recent signals").click();
        return page.getByText('{"service":"checkout"}').count();
      })
      .toBe(1);

    await page.getByRole("link", { name: "Event log" }).click();
    await page.getByLabel("Event type").selectOption("segment-created");
    await page.getByRole("cell", { name: "segment-created" }).first().waitFor();
    await expectAccessible(page, "the event log");
    await page.getByRole("link", { name: "Applications" }).click();
    await page.getByRole("heading", { name: "Applications" }).waitFor();
    await expectAccessible(page, "the applications screen");
  }, 120_000);
});
