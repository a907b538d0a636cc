/**
 * Addon secrets are sealed in the store: the embedded engine's files never hold them in clear,
 * what an older version stored in clear is sealed at the next start, and a rotated key seals again
 * what the previous one sealed.
 */
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSecretBox, SecretUnreadableError } from "@vexil/auth";
import { embeddedStoreOnDisk } from "../secrets/secrets.fixture.js";
import { createAddonStore, type AddonDocument } from "./addon-store.js";

const datadogKey = "dd0123456789abcdef0123456789abcd";
const addon: AddonDocument = {
  _id: 1,
  provider: "datadog",
  description: null,
  enabled: true,
  parameters: { url: "https://api.datadoghq.eu/api/v1/events", apiKey: datadogKey, customHeaders: '{"X-Secret":"hdr-s3cret"}' },
  events: ["feature-created"],
  projects: [],
  environments: [],
  createdAt: new Date("2024-05-01T00:00:00Z"),
};

let store: Awaited<ReturnType<typeof embeddedStoreOnDisk>>;
beforeEach(async () => {
  store = await embeddedStoreOnDisk();
});
afterEach(() => store.drop());

describe("addon secrets at rest", () => {
  it("are sealed on disk and read in clear; what is not secret stays readable", async () => {
    const addons = await createAddonStore(store.engine, createSecretBox({ current: randomBytes(32) }));
    await store.engine.withTransaction((session) => addons.insert(addon, session));
    expect(await addons.get(1)).toEqual(addon);
    const disk = await store.onDisk();
    expect(disk).not.toContain(datadogKey);
    expect(disk).not.toContain("hdr-s3cret");
    expect(disk).toContain("api.datadoghq.eu");
  });

  it("are sealed at start when an older version stored them in clear", async () => {
    await store.engine.collection<AddonDocument>("addons").insertOne({ ...addon });
    await store.reopen();
    expect(await store.onDisk()).toContain(datadogKey);
    const addons = await createAddonStore(store.engine, createSecretBox({ current: randomBytes(32) }));
    expect(await addons.list()).toEqual([addon]);
    // The restart folds the journal into a new snapshot: nothing of the clear version is left.
    await store.reopen();
    expect(await store.onDisk()).not.toContain(datadogKey);
  });

  it("are sealed again under a new key, and the start is refused without the key that sealed them", async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = createSecretBox({ current: oldKey });
    const first = await createAddonStore(store.engine, before);
    await store.engine.withTransaction((session) => first.insert(addon, session));
    const sealedUnder = async () => JSON.stringify(await store.engine.collection("addons").find({})).match(/v1\.([0-9a-f]{8})\./)?.[1];
    expect(await sealedUnder()).toBe(before.keyId);

    const refused = await createAddonStore(store.engine, createSecretBox({ current: newKey })).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SecretUnreadableError);
    expect((refused as Error).message).toMatch(/Cannot read the stored addon parameters: .*sealed under key .*SECRETS_PREVIOUS_KEYS/);

    const rotated = createSecretBox({ current: newKey, previous: [oldKey] });
    expect(await (await createAddonStore(store.engine, rotated)).get(1)).toEqual(addon);
    expect(await sealedUnder()).toBe(rotated.keyId);
    // The old key is no longer needed.
    expect(await (await createAddonStore(store.engine, createSecretBox({ current: newKey }))).get(1)).toEqual(addon);
  });
});
