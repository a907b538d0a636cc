import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { apiTokenAuthenticator, authenticate, requireTokenType } from "./middleware.js";
import { assertTokenScope, getPrincipal } from "./principal.js";
import { createTokenSecret, parseTokenSecret, tokenDigest } from "./token-secret.js";
import { TokenSet, type TokenGrant } from "./token-set.js";

const adminSecret = createTokenSecret({ projects: ["*"], environment: "*" });
const clientSecret = createTokenSecret({ projects: ["default"], environment: "development" });
const expiredSecret = createTokenSecret({ projects: ["*"], environment: "*" });

const grant = (secret: string, over: Partial<TokenGrant>): TokenGrant => ({
  digest: tokenDigest(secret),
  tokenName: "t",
  type: "admin",
  environment: "*",
  projects: ["*"],
  expiresAt: null,
  ...over,
});

describe("token secrets", () => {
  it("have Unleash's shape", () => {
    expect(adminSecret).toMatch(/^\*:\*\.[0-9a-f]{56}$/);
    expect(createTokenSecret({ projects: ["a", "b"], environment: "production" })).toMatch(/^\[\]:production\./);
    expect(parseTokenSecret(clientSecret)).toEqual({ project: "default", environment: "development" });
    expect(parseTokenSecret("garbage")).toBeNull();
  });

  it("are random", () => {
    expect(createTokenSecret({ projects: ["*"], environment: "*" })).not.toBe(adminSecret);
  });
});

describe("scope", () => {
  const scoped = grant(clientSecret, { type: "client", projects: ["default"], environment: "development" });
  it("admits what the token covers", () => {
    expect(() => assertTokenScope(scoped, { project: "default", environment: "development", permission: "READ" })).not.toThrow();
  });
  it("names the permission and environment it lacks", () => {
    expect(() => assertTokenScope(scoped, { environment: "production", permission: "READ" })).toThrow(
      "You don't have the required permission: READ in environment production",
    );
    expect(() => assertTokenScope(scoped, { project: "other", permission: "READ" })).toThrow(/project other/);
  });
});

describe("middleware", () => {
  let running: RunningServer;
  beforeAll(async () => {
    const tokens = new TokenSet({
      loadAll: async () => [
        grant(adminSecret, {}),
        grant(clientSecret, { type: "client", projects: ["default"], environment: "development" }),
        grant(expiredSecret, { expiresAt: "2020-01-01T00:00:00.000Z" }),
      ],
    });
    await tokens.refresh();
    const router = express.Router();
    router.use("/admin", authenticate([apiTokenAuthenticator(tokens)]), requireTokenType(["admin"]));
    router.get("/admin/who", (req, res) => {
      const principal = getPrincipal(req);
      res.json({ name: principal?.kind === "api-token" ? principal.grant.tokenName : null });
    });
    const app = createHttpApp({ logger: createLogger({ service: "test", level: "silent" }), routers: [router] });
    running = await listen(app, 0, "127.0.0.1");
  });
  afterAll(() => running.close());

  const who = (authorization?: string) => fetch(`${running.url}/admin/who`, { headers: authorization ? { authorization } : {} });

  it("admits a valid admin token, bare or as Bearer", async () => {
    expect((await who(adminSecret)).status).toBe(200);
    expect((await who(`Bearer ${adminSecret}`)).status).toBe(200);
  });

  it.each([
    ["missing", undefined],
    ["unknown", "*:*.nosuchtoken"],
    ["expired", expiredSecret],
  ])("answers 401 for a %s token", async (_case, authorization) => {
    const res = await who(authorization);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ name: "AuthenticationRequired" });
  });

  it("answers 403 for a token of the wrong type", async () => {
    const res = await who(clientSecret);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ name: "NoAccessError", message: expect.stringContaining("ADMIN") });
  });
});
