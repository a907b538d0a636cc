/**
 * The admin rules that a "read, then write" would not keep under concurrent requests, kept by the
 * store: unique logins, one draft change request per author and environment, the project feature
 * limit, one initial admin user and token. Runs on the embedded engine always and on MongoDB when
 * MONGODB_URL names a replica set. The embedded engine runs transactions one at a time, so there
 * the races cannot happen and the tests show the rule holding through the same calls; the
 * store-level tests (a second write that skips the service's check) fail without the index.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { NameExistsError } from "@vexil/errors";
import { createLogger } from "@vexil/logger";
import type { StoreEngine, StoreSession } from "@vexil/store";
import { testEngineKinds } from "@vexil/store/testing";
import type { Actor } from "./access/actor.js";
import { seededToken } from "./api-tokens/api-token-seeding.js";
import { createApiTokenStore } from "./api-tokens/api-token-store.js";
import type { ChangeRequestDocument } from "./change-requests/change-request-model.js";
import { createChangeRequestStore } from "./change-requests/change-request-store.js";
import { createAdminDeps, type AdminDeps } from "./compose/index.js";
import { createFeatureStore } from "./features/feature-store.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";
import { createAdminService } from "./service.js";
import { createUserStore, type UserDocument } from "./users/user-store.js";

const kinds = testEngineKinds("admin rules under concurrent requests");

const admin: Actor = { name: "admin", userId: 1 };
const logger = createLogger({ service: "concurrent-rules-test", level: "silent" });

function user(id: number, fields: Partial<UserDocument>): UserDocument {
  return {
    _id: id,
    name: null,
    username: null,
    email: null,
    rootRole: 3,
    passwordHash: null,
    loginAttempts: 0,
    createdAt: new Date(),
    seenAt: null,
    ...fields,
  };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const adminDeps = (engine: StoreEngine) =>
  createAdminDeps({
    engines: { store: engine, bus: createMemoryBus(), cache: createMemoryCache() },
    settings: {
      INIT_ADMIN_API_TOKENS: [createTokenSecret({ projects: ["*"], environment: "*" })],
      INIT_CLIENT_API_TOKENS: [],
      INIT_FRONTEND_API_TOKENS: [],
    },
    secrets: testSecretBox(),
    logger,
  });

describe.each(kinds)("rules under concurrent requests: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;
  let deps: AdminDeps;
  let stopService: () => Promise<void>;

  beforeAll(async () => {
    ({ engine, drop } = await kind.open());
    deps = await adminDeps(engine);
    const service = createAdminService(deps);
    await service.start();
    stopService = () => service.stop();
  });
  afterAll(async () => {
    await stopService?.();
    await engine?.close();
    await drop?.();
  });

  describe("logins", () => {
    const insertAtOnce = async (docs: UserDocument[]) => {
      const users = await createUserStore(engine);
      return Promise.allSettled(docs.map((doc) => deps.unitOfWork.run((tx) => users.insert(doc, tx.session))));
    };
    const outcome = (results: PromiseSettledResult<unknown>[]) => {
      const refused = results.filter((result) => result.status === "rejected");
      for (const result of refused) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(NameExistsError);
      return { created: results.length - refused.length, refused: refused.length };
    };

    it("the store refuses a second user with a taken username, even when nothing checked first", async () => {
      expect(outcome(await insertAtOnce([user(9001, { username: "twin" }), user(9002, { username: "twin" })]))).toEqual({
        created: 1,
        refused: 1,
      });
    });

    it("and a second user with a taken email, or a username that is someone's email", async () => {
      expect(outcome(await insertAtOnce([user(9011, { email: "same@x.io" }), user(9012, { email: "same@x.io" })]))).toEqual({
        created: 1,
        refused: 1,
      });
      expect(outcome(await insertAtOnce([user(9013, { username: "same@x.io" })]))).toEqual({ created: 0, refused: 1 });
    });

    it("two sign-ups with one username at once: one 409, one account", async () => {
      const results = await Promise.allSettled([
        deps.governance.users.create({ username: "racer", rootRole: 3 }, admin),
        deps.governance.users.create({ username: "racer", rootRole: 2 }, admin),
      ]);
      expect(outcome(results)).toEqual({ created: 1, refused: 1 });
      expect((await deps.governance.users.list()).filter((view) => view.username === "racer")).toHaveLength(1);
    });

    it("an email changed to another user's login is refused and nothing changes", async () => {
      const first = await deps.governance.users.create({ username: "owner", email: "owner@x.io", rootRole: 3 }, admin);
      const second = await deps.governance.users.create({ username: "other", rootRole: 3 }, admin);
      await expect(deps.governance.users.update(second.id, { email: "owner@x.io" }, admin)).rejects.toBeInstanceOf(NameExistsError);
      expect((await deps.governance.users.get(second.id)).email).toBeUndefined();
      // Its own logins do not collide with themselves, and a freed email can be taken.
      await deps.governance.users.update(first.id, { email: "new-owner@x.io" }, admin);
      await deps.governance.users.update(second.id, { email: "owner@x.io" }, admin);
      expect((await deps.governance.users.get(second.id)).email).toBe("owner@x.io");
    });
  });

  describe("one draft change request per author, project and environment", () => {
    const draft = (id: number, fields: Partial<ChangeRequestDocument> = {}): ChangeRequestDocument => ({
      _id: id,
      project: "default",
      environment: "production",
      title: `Change request #${id}`,
      state: "Draft",
      minApprovals: 1,
      createdBy: { id: 77, username: "author" },
      createdAt: new Date(),
      updatedAt: new Date(),
      changes: [],
      approvals: [],
      rejections: [],
      comments: [],
      schedule: null,
      failureReason: null,
      appliedAt: null,
      ...fields,
    });

    it("the store refuses a second draft, even when nothing looked for the first", async () => {
      const store = await createChangeRequestStore(engine);
      const results = await Promise.allSettled(
        [draft(501), draft(502)].map((doc) => deps.unitOfWork.run((tx) => store.insert(doc, tx.session))),
      );
      expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect((results.find((result) => result.status === "rejected") as PromiseRejectedResult).reason).toBeInstanceOf(NameExistsError);
      // Another environment, another author, or a request past Draft: no collision.
      await deps.unitOfWork.run(async (tx) => {
        await store.insert(draft(503, { environment: "development" }), tx.session);
        await store.insert(draft(504, { createdBy: { id: 78, username: "other" } }), tx.session);
        await store.insert(draft(505, { state: "In review" }), tx.session);
      });
    });

    it("two proposals by one author at once end up in one draft", async () => {
      const { changeRequests: changeRequestService, config: changeRequestConfig } = deps.changeRequests;
      const { featureService } = deps.flags;
      await featureService.create("default", { name: "proposed" }, admin);
      await changeRequestConfig.putConfig("default", "development", { changeRequestsEnabled: true }, admin);
      const author: Actor = { name: "proposer", userId: 4242 };
      const propose = (enabled: boolean) =>
        changeRequestService.addChanges(
          "default",
          "development",
          [{ action: "updateEnabled", feature: "proposed", payload: { enabled } }],
          author,
        );
      const [a, b] = await Promise.all([propose(true), propose(false)]);
      expect(a.id).toBe(b.id);
      const drafts = (
        await deps.stores.changeRequests.list({ project: "default", environment: "development", createdBy: 4242, state: "Draft" })
      ).length;
      expect(drafts).toBe(1);
    });
  });

  describe("the project feature limit", () => {
    it("holds when two transactions each count the project's flags before adding one", async () => {
      const { projectService, featureService } = deps.flags;
      await projectService.create({ id: "limited", name: "Limited", featureLimit: 2 }, admin);
      await featureService.create("limited", { name: "existing" }, admin);
      const features = await createFeatureStore(engine);
      const flagOf = async (name: string) => ({ ...(await features.get("existing"))!, _id: name, version: 1 });
      /** The check and the insert the feature service makes, with a pause between them for the first. */
      const addIfBelowLimit = async (name: string, session: StoreSession, pause?: () => Promise<void>) => {
        const live = await features.count({ project: "limited", archived: false }, session);
        await pause?.();
        if (live >= 2) return "limit reached";
        await features.insert(await flagOf(name), session);
        return "added";
      };
      const holding = gate();
      const release = gate();
      const first = engine.withTransaction((session) =>
        addIfBelowLimit("first", session, async () => {
          holding.open();
          await release.promise;
        }),
      );
      await holding.promise;
      const second = engine.withTransaction((session) => addIfBelowLimit("second", session));
      // On MongoDB the second counts and commits while the first is paused; here it waits its turn.
      if (!kind.serial) await second;
      release.open();
      const outcomes = await Promise.allSettled([first, second]);
      expect(await features.count({ project: "limited", archived: false })).toBe(2);
      const values = outcomes.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : "refused"));
      expect(values.filter((value) => value === "added")).toHaveLength(1);
      // What makes two such transactions conflict on MongoDB: each flag added wrote the project's guard.
      expect(await engine.collection("project_flag_guards").findOne({ _id: "limited" })).toEqual({ _id: "limited", liveFlagsAdded: 2 });
    });

    it("lets exactly the limit's number of flags in when many are created at once", async () => {
      const { projectService, featureService } = deps.flags;
      await projectService.create({ id: "crowded", name: "Crowded", featureLimit: 3 }, admin);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => featureService.create("crowded", { name: `crowd-${i}` }, admin)),
      );
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(3);
      for (const result of results) {
        if (result.status === "rejected") expect(result.reason).toBeInstanceOf(NameExistsError);
      }
    });
  });
});

describe.each(kinds)("first start of two admin instances at once: $name", (kind) => {
  let engine: StoreEngine;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ engine, drop } = await kind.open());
  });
  afterAll(async () => {
    await engine?.close();
    await drop?.();
  });

  it("creates one initial admin user, whatever each instance was configured with", async () => {
    const [one, two] = [await adminDeps(engine), await adminDeps(engine)];
    const created = await Promise.all([
      one.governance.users.ensureInitialAdmin({ username: "admin", password: "first-password" }, admin),
      two.governance.users.ensureInitialAdmin({ username: "root", password: "second-password" }, admin),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    const users = await one.governance.users.list();
    expect(users).toHaveLength(1);
    // As in Unleash, a start that finds no user at all creates the initial admin again.
    await (await createUserStore(engine)).delete(users[0]!.id);
    expect(await two.governance.users.ensureInitialAdmin({ username: "admin", password: "third-password" }, admin)).toBe(true);
    expect(await one.governance.users.list()).toHaveLength(1);
    // Three scrypt hashes: slow on a loaded machine.
  }, 120_000);

  it("creates one initial admin token", async () => {
    const tokens = await createApiTokenStore(engine);
    const token = (secret: string) => ({ ...seededToken(secret, "admin", new Date()), tokenName: "vexil-admin" });
    const created = await Promise.all([
      tokens.insertFirstAdminToken(token(createTokenSecret({ projects: ["*"], environment: "*" }))),
      tokens.insertFirstAdminToken(token(createTokenSecret({ projects: ["*"], environment: "*" }))),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await tokens.count()).toBe(1);
  });
});
