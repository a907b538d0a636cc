import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TokenSet, tokenDigest, type TokenGrant } from "@vexil/auth";
import { createMemoryBus, type Bus } from "@vexil/bus";
import { createMemoryCache, type Cache } from "@vexil/cache";
import { cacheKeys, topics } from "@vexil/contracts";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { z } from "zod";
import { systemActor } from "../access/actor.js";
import { seedDefaults } from "../bootstrap/seed-defaults.js";
import { createEnvironmentStore } from "../environments/environment-store.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { createProjectStore } from "../projects/project-store.js";
import { ApiTokenService } from "./api-token-service.js";
import { createApiTokenStore } from "./api-token-store.js";

describe("ApiTokenService", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let bus: Bus;
  let cache: Cache;
  let events: EventStore;
  let service: ApiTokenService;
  let unitOfWork: UnitOfWork;
  let tokens: Awaited<ReturnType<typeof createApiTokenStore>>;
  const now = new Date("2030-01-01T00:00:00.000Z");

  beforeAll(async () => {
    temp = await tempEngine("api-tokens");
    engine = temp.engine;
    bus = createMemoryBus();
    cache = createMemoryCache();
    events = await EventStore.create(engine, () => now);
    const environments = createEnvironmentStore(engine);
    const projects = await createProjectStore(engine);
    await seedDefaults({ environments, projects }, now);
    tokens = await createApiTokenStore(engine);
    unitOfWork = new UnitOfWork(engine, events);
    service = new ApiTokenService({
      tokens,
      environments,
      projects,
      unitOfWork,
      cache,
      bus,
      localTokens: new TokenSet({ loadAll: async () => [] }),
      clock: () => now,
    });
  });
  afterAll(async () => {
    await bus.close();
    await temp.remove();
  });

  it("scopes secrets as Unleash does and shares grants without secrets", async () => {
    const token = await service.create({ tokenName: "sdk", type: "client", environment: "production", projects: ["default"] }, systemActor);
    expect(token.secret).toMatch(/^default:production\.[0-9a-f]{56}$/);
    const grants = (await cache.getJson<TokenGrant[]>(cacheKeys.tokenGrants))!;
    expect(grants).toContainEqual(
      expect.objectContaining({ digest: tokenDigest(token.secret), type: "client", environment: "production" }),
    );
    expect(JSON.stringify(grants)).not.toContain(token.secret);
  });

  it("forces admin tokens to everything and refuses narrower ones", async () => {
    expect((await service.create({ tokenName: "ops", type: "admin" }, systemActor)).secret).toMatch(/^\*:\*\./);
    await expect(service.create({ tokenName: "ops", type: "admin", projects: ["default"] }, systemActor)).rejects.toThrow(/must be \*/);
  });

  it("refuses unknown environments and projects and writes nothing", async () => {
    const before = (await events.list()).total;
    await expect(service.create({ tokenName: "x", type: "frontend", environment: "staging" }, systemActor)).rejects.toThrow(
      "Environment=staging does not exist",
    );
    await expect(service.create({ tokenName: "x", type: "client", projects: ["default", "ghost"] }, systemActor)).rejects.toThrow(
      "Project=ghost does not exist",
    );
    expect((await events.list()).total).toBe(before);
    expect(await service.listByName("x")).toEqual([]);
  });

  it("records seenAt from use reports by digest", async () => {
    const token = await service.create({ tokenName: "reported", type: "client" }, systemActor);
    const subscription = service.recordUseReports();
    bus.publish({ ...topics.tokensSeen, schema: z.unknown() }, { nonsense: true });
    bus.publish(topics.tokensSeen, { digests: [tokenDigest(token.secret)] });
    await vi.waitFor(async () => expect((await service.listByName("reported"))[0].seenAt).toBe(now.toISOString()));
    subscription.unsubscribe();
  });

  it("records one event per change, never with the secret", async () => {
    const token = await service.create({ tokenName: "audited", type: "client" }, systemActor);
    await service.updateExpiry(token.secret, "2031-01-01T00:00:00.000Z", systemActor);
    await service.delete(token.secret, systemActor);
    await service.delete(token.secret, systemActor);
    const { events: log } = await events.list({ limit: 3 });
    expect(log.map((e) => e.type)).toEqual(["api-token-deleted", "api-token-updated", "api-token-created"]);
    expect(JSON.stringify(log)).not.toContain(token.secret.split(".")[1]);
    await expect(service.updateExpiry(token.secret, "2031-01-01T00:00:00.000Z", systemActor)).rejects.toThrow(/Could not find/);
  });

  it("reads the token it changes inside the change's transaction, so it sees what that transaction wrote", async () => {
    const secret = "default:production.within-one-transaction";
    const doc = {
      _id: secret,
      digest: tokenDigest(secret),
      tokenName: "joined",
      type: "client" as const,
      environment: "production",
      projects: ["default"],
      expiresAt: null,
      createdAt: now,
      seenAt: null,
      alias: null,
    };
    await unitOfWork.run(async (tx) => {
      await tokens.insert(doc, tx.session);
      const updated = await service.updateExpiry(secret, "2031-01-01T00:00:00.000Z", systemActor);
      expect(updated.expiresAt).toBe("2031-01-01T00:00:00.000Z");
    });
    expect((await tokens.get(secret))?.expiresAt).toEqual(new Date("2031-01-01T00:00:00.000Z"));
    await unitOfWork.run(async (tx) => {
      await tokens.update(secret, { tokenName: "renamed" }, tx.session);
      await service.delete(secret, systemActor);
    });
    expect(await tokens.get(secret)).toBeNull();
    expect((await events.list({ type: "api-token-deleted" })).events[0]?.preData).toMatchObject({ tokenName: "renamed" });
  });
});
