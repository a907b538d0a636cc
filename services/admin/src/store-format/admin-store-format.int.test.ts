/**
 * Admin's store formats on a store written in the old layout, on the embedded engine always and on
 * MongoDB when MONGODB_URL names a replica set (`npm run test:mongo`).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { NameExistsError } from "@vexil/errors";
import { formatCollection, migrateStore, StoreFormatTooNewError, type FormatMarker, type StoreEngine } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import { seededToken } from "../api-tokens/api-token-seeding.js";
import { createApiTokenStore, type ApiTokenDocument } from "../api-tokens/api-token-store.js";
import { createUserStore, type StoredUser, type UserDocument } from "../users/user-store.js";
import { adminStoreFormat } from "./admin-store-format.js";

const at = (day: number) => new Date(Date.UTC(2026, 10, day));

function user(id: number, fields: Partial<UserDocument>): UserDocument {
  return {
    _id: id,
    name: null,
    username: null,
    email: null,
    rootRole: 3,
    passwordHash: null,
    loginAttempts: 0,
    createdAt: at(1),
    seenAt: null,
    ...fields,
  };
}

function recordingLog() {
  const lines: string[] = [];
  return { lines, info: (_details: Record<string, unknown>, message: string) => void lines.push(message) };
}

describe.each(testEngineKinds("admin store formats"))("admin store formats: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ engine, drop } = await kind.open());
  });
  afterEach(async () => {
    await engine.close();
    await drop();
  });

  /**
   * As a release before format versions wrote it: users without `logins`, and token uses written on
   * the token documents themselves; one token was also used since, recorded by digest.
   */
  async function writeFormat0() {
    await engine
      .collection<UserDocument>("users")
      .insertMany([
        user(1, { username: "admin", email: "admin@example.com" }),
        user(2, { email: "ann@example.com" }),
        user(3, { name: "invited, no login yet" }),
      ]);
    const usedOnce = seededToken(createTokenSecret({ projects: ["*"], environment: "*" }), "admin", at(1));
    const usedSince = seededToken(createTokenSecret({ projects: ["default"], environment: "development" }), "client", at(1));
    const neverUsed = seededToken(createTokenSecret({ projects: ["default"], environment: "development" }), "frontend", at(1));
    await engine.collection<ApiTokenDocument>("api_tokens").insertMany([
      { ...usedOnce, seenAt: at(5) },
      { ...usedSince, seenAt: at(3) },
      { ...neverUsed, seenAt: null },
    ]);
    await engine.collection<{ _id: string; seenAt: Date }>("api_tokens_seen").insertOne({ _id: usedSince.digest, seenAt: at(4) });
    return { usedOnce, usedSince, neverUsed };
  }

  it("brings format 0 to 1: every user gets its logins, every token use moves to api_tokens_seen", async () => {
    const tokens = await writeFormat0();
    const log = recordingLog();
    expect(await migrateStore(engine, adminStoreFormat, log)).toEqual({ found: 0, format: 1 });
    expect(log.lines).toContain(`migrating the admin store to format 1: ${adminStoreFormat.steps[0]!.description}`);
    expect(log.lines).toContain("users and token uses brought to format 1");

    const users = await engine.collection<StoredUser>("users").find({}, { sort: { _id: 1 } });
    expect(users.map((u) => u.logins)).toEqual([["admin", "admin@example.com"], ["ann@example.com"], undefined]);
    const stored = await engine.collection<ApiTokenDocument>("api_tokens").find({});
    expect(stored.map((token) => token.seenAt)).toEqual([null, null, null]);
    const seen = await engine.collection<{ _id: string; seenAt: Date }>("api_tokens_seen").find({}, { sort: { seenAt: 1 } });
    // The later of the two records wins for the token used since.
    expect(seen).toEqual([
      { _id: tokens.usedSince.digest, seenAt: at(4) },
      { _id: tokens.usedOnce.digest, seenAt: at(5) },
    ]);
    const marker = await engine.collection<FormatMarker>(formatCollection).findOne({ _id: "admin" });
    expect(marker?.migrations.map(({ from, to }) => ({ from, to }))).toEqual([{ from: 0, to: 1 }]);

    // What the stores of format 1 read: the uses by digest, and logins under the unique index.
    const apiTokens = await createApiTokenStore(engine);
    expect((await apiTokens.get(tokens.usedOnce._id))?.seenAt).toEqual(at(5));
    expect((await apiTokens.get(tokens.usedSince._id))?.seenAt).toEqual(at(4));
    expect((await apiTokens.get(tokens.neverUsed._id))?.seenAt).toBeNull();
    const userStore = await createUserStore(engine);
    await expect(userStore.insert(user(4, { username: "ann@example.com" }))).rejects.toBeInstanceOf(NameExistsError);
    expect((await userStore.findByLogin("admin"))?._id).toBe(1);
  });

  it("gives the same result when the step runs again, as after a crash before it was recorded", async () => {
    await writeFormat0();
    await migrateStore(engine, adminStoreFormat, recordingLog());
    const snapshot = async () => ({
      users: await engine.collection("users").find({}, { sort: { _id: 1 } }),
      tokens: await engine.collection("api_tokens").find({}, { sort: { _id: 1 } }),
      seen: await engine.collection("api_tokens_seen").find({}, { sort: { _id: 1 } }),
    });
    const before = await snapshot();
    await adminStoreFormat.steps[0]!.run(engine, recordingLog());
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a store a newer release wrote, leaving it as it was", async () => {
    await writeFormat0();
    await engine.collection<FormatMarker>(formatCollection).insertOne({ _id: "admin", format: 2, markedAt: at(6), migrations: [] });
    await expect(migrateStore(engine, adminStoreFormat, recordingLog())).rejects.toThrow(StoreFormatTooNewError);
    expect(await engine.collection<StoredUser>("users").countDocuments({ logins: { $exists: true } })).toBe(0);
  });
});
