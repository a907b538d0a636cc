import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import { seededToken } from "./api-token-seeding.js";
import { createApiTokenStore, type ApiTokenStore } from "./api-token-store.js";

describe("API token store", () => {
  let dir: string;
  let engine: StoreEngine;
  let store: ApiTokenStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-token-store-"));
    engine = await createEmbeddedEngine({ dir });
    store = await createApiTokenStore(engine);
  });
  afterEach(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("records uses without copying the secret into the journal again", async () => {
    const secret = createTokenSecret({ projects: ["*"], environment: "*" });
    const token = seededToken(secret, "admin", new Date("2030-01-01T00:00:00Z"));
    await store.insert(token);
    const journal = () => readFile(path.join(dir, "journal.ejsonl"), "utf8");
    const copies = async () => (await journal()).split(secret).length - 1;
    expect(await copies()).toBe(1);
    const lines = async () => (await journal()).split("\n").filter(Boolean).length;
    const before = await lines();

    for (let minute = 1; minute <= 10; minute++) {
      expect(await store.markSeen([token.digest, "not-a-token"], new Date(Date.UTC(2030, 0, 1, 0, minute)))).toBe(1);
    }
    expect(await copies()).toBe(1);
    // One small line per report: the use, by digest.
    expect((await lines()) - before).toBe(10);
    expect((await store.get(secret))?.seenAt).toEqual(new Date(Date.UTC(2030, 0, 1, 0, 10)));
    expect((await store.list())[0]?.seenAt).toEqual(new Date(Date.UTC(2030, 0, 1, 0, 10)));
  });

  it("keeps the latest use when reports arrive out of order, and forgets it with the token", async () => {
    const secret = createTokenSecret({ projects: ["*"], environment: "*" });
    const token = seededToken(secret, "admin", new Date());
    await store.insert(token);
    await store.markSeen([token.digest], new Date("2030-01-02T00:00:00Z"));
    await store.markSeen([token.digest], new Date("2030-01-01T00:00:00Z"));
    expect((await store.get(secret))?.seenAt).toEqual(new Date("2030-01-02T00:00:00Z"));
    expect(await store.delete(secret)).toBe(true);
    expect(await engine.collection("api_tokens_seen").countDocuments({})).toBe(0);
  });

  it("seeds a configured token once, however often it is seeded", async () => {
    const token = seededToken(createTokenSecret({ projects: ["*"], environment: "*" }), "admin", new Date());
    const added = await Promise.all([store.insertMissing(token), store.insertMissing(token)]);
    expect(added.filter(Boolean)).toHaveLength(1);
    expect(await store.insertMissing(token)).toBe(false);
    expect(await store.count()).toBe(1);
  });
});
