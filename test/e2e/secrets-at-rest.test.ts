/**
 * Secrets at rest, read from DATA_DIR of the compiled gateway as an attacker with a copy of the
 * disk would: personal access tokens, service account tokens and signal endpoint tokens are kept
 * only as digests (their secrets are shown once, at creation, as in Unleash), and addon secrets
 * (a webhook's URL, authorization and custom headers, a Datadog API key) are sealed with the
 * secrets key. None appears in any file of any store, in the journal as written or in the snapshot
 * a restart folds it into. API tokens are the exception: Unleash shows their secrets back to
 * admins, so they are kept as given (the store's directory is 0700, its files 0600).
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { future } from "../src/access-helpers.js";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

let vexil: TestSystem;
beforeAll(async () => {
  vexil = await startTestSystem({ env: { ADDONS_ALLOW_PRIVATE_URLS: "true" } });
}, 120_000);
afterAll(() => vexil?.stop());

/** Every file under DATA_DIR (the secrets key file aside: it is the key, not a secret it seals), with its text. */
async function storedFiles(): Promise<Array<{ file: string; text: string }>> {
  const entries = await readdir(vexil.dataDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name !== "secrets.key");
  return Promise.all(
    files.map(async (entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return { file: path.relative(vexil.dataDir, file), text: await readFile(file, "utf8") };
    }),
  );
}

const holding = (files: Array<{ file: string; text: string }>, secret: string) =>
  files.filter(({ text }) => text.includes(secret)).map(({ file }) => file);

describe("secrets at rest", () => {
  it("keeps no token secret or addon secret in clear in any store file, before and after a restart", async () => {
    const secrets: Record<string, string> = {};

    const person = await vexil.createPerson({ username: "rest-person", rootRole: "Editor" });
    secrets["personal access token"] = person.token;

    const account = (
      await json(
        await vexil.api("/api/admin/service-account", { method: "POST", body: { username: "rest-robot", rootRole: "Viewer" } }),
        201,
      )
    ).id as number;
    const accountToken = await json(
      await vexil.api(`/api/admin/service-account/${account}/token`, { method: "POST", body: { description: "ci", expiresAt: future } }),
      201,
    );
    secrets["service account token"] = accountToken.secret as string;

    const endpoint = await json(await vexil.api("/api/admin/signal-endpoints", { method: "POST", body: { name: "rest-endpoint" } }), 201);
    const signalToken = await json(
      await vexil.api(`/api/admin/signal-endpoints/${endpoint.id}/tokens`, { method: "POST", body: { name: "source" } }),
      201,
    );
    secrets["signal endpoint token"] = signalToken.token as string;

    const unique = () => randomBytes(12).toString("hex");
    secrets["webhook URL path"] = `hook-${unique()}`;
    secrets["webhook authorization"] = `auth-${unique()}`;
    secrets["webhook custom header"] = `header-${unique()}`;
    secrets["Datadog API key"] = `dd-${unique()}`;
    const webhook = await vexil.api("/api/admin/addons", {
      method: "POST",
      body: {
        provider: "webhook",
        enabled: true,
        events: ["feature-created"],
        parameters: {
          url: `http://127.0.0.1:9/${secrets["webhook URL path"]}`,
          authorization: `Bearer ${secrets["webhook authorization"]}`,
          customHeaders: JSON.stringify({ "X-Api-Key": secrets["webhook custom header"] }),
        },
      },
    });
    expect(webhook.status, await webhook.clone().text()).toBe(200);
    const datadog = await vexil.api("/api/admin/addons", {
      method: "POST",
      body: {
        provider: "datadog",
        enabled: true,
        events: ["feature-created"],
        parameters: { url: "http://127.0.0.1:9/api/v1/events", apiKey: secrets["Datadog API key"] },
      },
    });
    expect(datadog.status, await datadog.clone().text()).toBe(200);

    // The tokens work: what is stored still recognises them.
    expect((await vexil.api("/api/admin/user", { token: secrets["personal access token"]! })).status).toBe(200);
    expect((await vexil.api("/api/admin/user", { token: secrets["service account token"]! })).status).toBe(200);

    const written = await storedFiles();
    expect(written.map(({ file }) => file)).toEqual(expect.arrayContaining([path.join("admin", "journal.ejsonl")]));
    for (const [what, secret] of Object.entries(secrets)) expect(holding(written, secret), `${what} in clear`).toEqual([]);
    // The check finds what is there: the admin API token is kept as given (Unleash lists it back).
    expect(holding(written, vexil.tokens.admin)).not.toEqual([]);

    // A restart folds each journal into a snapshot: still nothing in clear.
    await vexil.restart();
    const folded = await storedFiles();
    expect(folded.map(({ file }) => file)).toEqual(expect.arrayContaining([path.join("admin", "snapshot.ejson")]));
    for (const [what, secret] of Object.entries(secrets)) expect(holding(folded, secret), `${what} in clear after a restart`).toEqual([]);
    expect((await vexil.api("/api/admin/user", { token: secrets["personal access token"]! })).status).toBe(200);
  }, 180_000);
});
