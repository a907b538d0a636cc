import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { embeddedStoreOnDisk, testSecretBox } from "../secrets/secrets.fixture.js";
import { createOidcSettingsStore, withoutSecret } from "./oidc-settings.js";

let store: Awaited<ReturnType<typeof embeddedStoreOnDisk>>;
beforeEach(async () => {
  store = await embeddedStoreOnDisk();
});
afterEach(() => store.drop());

describe("the OIDC client secret", () => {
  it("is sealed on disk, read in clear, and never part of the answer", async () => {
    const settings = { enabled: true, discoverUrl: "https://idp.example/.well-known/openid-configuration", clientId: "vexil" };
    const oidc = await createOidcSettingsStore(store.engine, testSecretBox());
    await oidc.put({ ...settings, secret: "client-secret-value" });
    const read = (await oidc.get())!;
    expect(read).toEqual({ ...settings, secret: "client-secret-value" });
    expect(withoutSecret(read)).toEqual(settings);
    const disk = await store.onDisk();
    expect(disk).not.toContain("client-secret-value");
    expect(disk).toContain("https://idp.example/");
  });
});
