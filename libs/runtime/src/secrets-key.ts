import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { createSecretBox, generateSecretsKey, parseSecretsKey, type SecretBox } from "@vexil/auth";
import { ConfigError, envSchemas } from "@vexil/config";
import type { Logger } from "@vexil/logger";
import type { PlatformConfig } from "./platform-config.js";

const secretsKey = z.string().superRefine((value, ctx) => {
  try {
    parseSecretsKey(value);
  } catch (err) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
  }
});

/** The settings of the key that seals stored secrets (read by the services that keep secrets: admin). */
export const secretsEnv = z.object({
  /** 32 random bytes, base64 or hex. Unset with the embedded store: a key file in DATA_DIR, made at the first start. */
  SECRETS_ENCRYPTION_KEY: secretsKey.optional(),
  /** Keys used before a rotation, comma-separated: what they sealed stays readable and is sealed again under the current key at start. */
  SECRETS_PREVIOUS_KEYS: envSchemas.commaList.pipe(z.array(secretsKey)).default(""),
});
export type SecretsConfig = z.infer<typeof secretsEnv>;

/** Where the generated key lives when none is configured. */
export const secretsKeyFileName = "secrets.key";

/**
 * The secret box of a process: sealing under SECRETS_ENCRYPTION_KEY when it is set. Unset with the
 * embedded store, the key is read from `<DATA_DIR>/secrets.key`, written (0600) at the first start:
 * it sits beside the data, so the journal, snapshots and backups hold no secret in clear though
 * whoever copies the whole directory has both. With MongoDB, where several admin processes must
 * share one key and none may have a lasting disk, a key must be configured.
 */
export async function openSecretBox(
  config: Pick<PlatformConfig, "DATA_DIR" | "MONGODB_URL"> & SecretsConfig,
  logger: Pick<Logger, "info">,
): Promise<SecretBox> {
  const previous = config.SECRETS_PREVIOUS_KEYS.map(parseSecretsKey);
  if (config.SECRETS_ENCRYPTION_KEY) return createSecretBox({ current: parseSecretsKey(config.SECRETS_ENCRYPTION_KEY), previous });
  if (config.MONGODB_URL) {
    throw new ConfigError([
      "SECRETS_ENCRYPTION_KEY: required with MONGODB_URL (every admin process must seal secrets with the same key); generate one with `openssl rand -base64 32`",
    ]);
  }
  const file = path.resolve(config.DATA_DIR, secretsKeyFileName);
  return createSecretBox({ current: await readOrCreateKeyFile(file, logger), previous });
}

async function readOrCreateKeyFile(file: string, logger: Pick<Logger, "info">): Promise<Buffer> {
  try {
    return parseKeyFile(file, await readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = generateSecretsKey();
  // Written whole under another name, then linked into place: a crash never leaves a half-written
  // key, and of two processes starting at once on one DATA_DIR, the second reads the first's key.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(`${key}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return parseKeyFile(file, await readFile(file, "utf8"));
  } finally {
    await unlink(temp);
  }
  logger.info({ file }, "created the key that seals stored secrets; keep it with backups of DATA_DIR, or set SECRETS_ENCRYPTION_KEY");
  return parseSecretsKey(key);
}

function parseKeyFile(file: string, text: string): Buffer {
  try {
    return parseSecretsKey(text);
  } catch (err) {
    throw new ConfigError([`${file}: the secrets key file ${(err as Error).message}`]);
  }
}
