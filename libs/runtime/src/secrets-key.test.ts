import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateSecretsKey } from "@vexil/auth";
import { ConfigError, loadConfig } from "@vexil/config";
import { createLogger } from "@vexil/logger";
import { openSecretBox, secretsEnv } from "./secrets-key.js";

const logger = createLogger({ service: "test", level: "silent" });
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-secrets-"));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const configOf = (env: Record<string, string>, dataDir: string, mongo?: string) => ({
  ...loadConfig(secretsEnv, env),
  DATA_DIR: dataDir,
  MONGODB_URL: mongo,
});

describe("the secrets key", () => {
  it("is the configured one when set, with the previous keys still opening what they sealed", async () => {
    const [current, previous] = [generateSecretsKey(), generateSecretsKey()];
    const dir = await tempDir();
    const old = await openSecretBox(configOf({ SECRETS_ENCRYPTION_KEY: previous }, dir), logger);
    const sealed = old.seal("secret", "test");
    const box = await openSecretBox(configOf({ SECRETS_ENCRYPTION_KEY: current, SECRETS_PREVIOUS_KEYS: `${previous}` }, dir), logger);
    expect(box.open(sealed, "test")).toBe("secret");
    expect(box.isStale(sealed)).toBe(true);
    // Nothing is written to DATA_DIR when a key is configured.
    await expect(stat(path.join(dir, "secrets.key"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("is generated once into DATA_DIR (0600) with the embedded store, and read from there after", async () => {
    const dir = path.join(await tempDir(), "data");
    const first = await openSecretBox(configOf({}, dir), logger);
    const file = path.join(dir, "secrets.key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await openSecretBox(configOf({}, dir), logger);
    expect(second.keyId).toBe(first.keyId);
    expect(second.open(first.seal("secret", "test"), "test")).toBe("secret");
    // Two processes starting at once on an empty DATA_DIR end up with one key.
    const other = path.join(await tempDir(), "data");
    const boxes = await Promise.all([openSecretBox(configOf({}, other), logger), openSecretBox(configOf({}, other), logger)]);
    expect(boxes[1]!.keyId).toBe(boxes[0]!.keyId);
    expect((await readFile(path.join(other, "secrets.key"), "utf8")).trim()).toHaveLength(44);
  });

  it("is required with MongoDB, and refused when malformed", async () => {
    const dir = await tempDir();
    await expect(openSecretBox(configOf({}, dir, "mongodb://localhost"), logger)).rejects.toThrow(ConfigError);
    await expect(openSecretBox(configOf({}, dir, "mongodb://localhost"), logger)).rejects.toThrow(/SECRETS_ENCRYPTION_KEY: required/);
    expect(() => loadConfig(secretsEnv, { SECRETS_ENCRYPTION_KEY: "not a key" })).toThrow(
      /SECRETS_ENCRYPTION_KEY: must be 32 random bytes/,
    );
    expect(() => loadConfig(secretsEnv, { SECRETS_PREVIOUS_KEYS: `${generateSecretsKey()},nope` })).toThrow(/SECRETS_PREVIOUS_KEYS\.1/);
    await writeFile(path.join(dir, "secrets.key"), "garbage\n");
    await expect(openSecretBox(configOf({}, dir), logger)).rejects.toThrow(/secrets\.key: the secrets key file must be 32 random bytes/);
  });
});
