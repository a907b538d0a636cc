import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { embeddedStoreOnDisk, testSecretBox } from "../secrets/secrets.fixture.js";
import { createSamlSettingsStore } from "./saml-settings-store.js";

const certificate = "-----BEGIN CERTIFICATE-----\nMIIC-idp-cert\n-----END CERTIFICATE-----";
const spCertificate = "-----BEGIN PRIVATE KEY-----\nMIIE-sp-private-key\n-----END PRIVATE KEY-----";

let store: Awaited<ReturnType<typeof embeddedStoreOnDisk>>;
beforeEach(async () => {
  store = await embeddedStoreOnDisk();
});
afterEach(() => store.drop());

describe("SAML certificates at rest", () => {
  it("are sealed on disk and read in clear", async () => {
    const saml = await createSamlSettingsStore(store.engine, testSecretBox());
    await saml.put({ enabled: true, entityId: "vexil", signOnUrl: "https://idp.example/sso", certificate, spCertificate });
    expect(await saml.get()).toEqual({
      enabled: true,
      entityId: "vexil",
      signOnUrl: "https://idp.example/sso",
      certificate,
      spCertificate,
    });
    const disk = await store.onDisk();
    expect(disk).not.toContain("MIIC-idp-cert");
    expect(disk).not.toContain("MIIE-sp-private-key");
    expect(disk).toContain("https://idp.example/sso");
  });

  it("are sealed at start when an older version stored them in clear", async () => {
    await store.engine.collection<{ _id: string; enabled: boolean; certificate: string }>("saml_settings").insertOne({
      _id: "saml",
      enabled: false,
      certificate,
    });
    const saml = await createSamlSettingsStore(store.engine, testSecretBox());
    expect(await saml.get()).toEqual({ enabled: false, certificate });
    await store.reopen();
    expect(await store.onDisk()).not.toContain("MIIC-idp-cert");
  });
});
