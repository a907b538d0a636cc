import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryBus } from "@vexil/bus";
import { createMemoryCache } from "@vexil/cache";
import { OperationDeniedError, ValidationError } from "@vexil/errors";
import { createLogger } from "@vexil/logger";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";
import type { Actor } from "./access/actor.js";
import { createAdminDeps, type AdminDeps } from "./compose/index.js";
import { testSecretBox } from "./secrets/secrets.fixture.js";

const admin: Actor = { name: "admin", userId: 1 };
const oidc = { enabled: true, discoverUrl: "https://idp.example.com/.well-known/openid-configuration", clientId: "vexil" };

describe("password sign-in turned off", { timeout: 60_000 }, () => {
  let dir: string;
  let engine: StoreEngine;
  const start = async (breakGlass: boolean): Promise<AdminDeps> =>
    createAdminDeps({
      engines: { store: engine, bus: createMemoryBus(), cache: createMemoryCache() },
      settings: {
        INIT_ADMIN_API_TOKENS: [],
        INIT_CLIENT_API_TOKENS: [],
        INIT_FRONTEND_API_TOKENS: [],
        INIT_ADMIN_USERNAME: "root",
        PASSWORD_SIGN_IN_BREAK_GLASS: breakGlass,
      },
      secrets: testSecretBox(),
      logger: createLogger({ service: "password-sign-in-test", level: "silent" }),
    });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "vexil-password-sign-in-"));
    engine = await createEmbeddedEngine({ dir });
  });
  afterEach(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("can be turned off only while single sign-on is enabled, and comes back when that is turned off", async () => {
    const { governance } = await start(false);
    await expect(governance.passwordSignIn.update({ disabled: true }, admin)).rejects.toBeInstanceOf(ValidationError);
    await governance.oidc.update({ ...oidc, secret: "s3cret" }, admin);
    await governance.passwordSignIn.update({ disabled: true }, admin);
    expect(await governance.passwordSignIn.isOn()).toBe(false);
    await expect(governance.passwordSignIn.assertAllowed("ann")).rejects.toBeInstanceOf(OperationDeniedError);
    // Without the break-glass, the built-in admin is refused like anyone else.
    await expect(governance.passwordSignIn.assertAllowed("root")).rejects.toBeInstanceOf(OperationDeniedError);
    // The secret left out is kept.
    await governance.oidc.update({ ...oidc, enabled: false }, admin);
    expect((await governance.oidc.get()).secret).toBe("s3cret");
    expect(await governance.passwordSignIn.isOn()).toBe(true);
    expect(await governance.passwordSignIn.assertAllowed("ann")).toBe("password");
  });

  it("lets only the built-in admin through the break-glass, by name", async () => {
    const { governance } = await start(true);
    await governance.oidc.update({ ...oidc, secret: "s3cret" }, admin);
    await governance.passwordSignIn.update({ disabled: true }, admin);
    expect(await governance.passwordSignIn.assertAllowed(" Root ")).toBe("break-glass");
    await expect(governance.passwordSignIn.assertAllowed("ann")).rejects.toBeInstanceOf(OperationDeniedError);
  });

  it("needs a client secret to enable OIDC, and a provider reached over HTTPS", async () => {
    const { governance } = await start(false);
    await expect(governance.oidc.update(oidc, admin)).rejects.toBeInstanceOf(ValidationError);
    await expect(
      governance.oidc.update({ ...oidc, secret: "s", discoverUrl: "http://idp.example.com/.well-known/openid-configuration" }, admin),
    ).rejects.toBeInstanceOf(ValidationError);
    await governance.oidc.update({ ...oidc, secret: "s", discoverUrl: "http://127.0.0.1:8080/.well-known/openid-configuration" }, admin);
  });
});
