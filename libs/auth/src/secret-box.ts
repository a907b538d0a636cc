import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** AES-256-GCM: a 32-byte key, a fresh 12-byte nonce per value, a 16-byte tag that detects any change. */
const algorithm = "aes-256-gcm";
const keyBytes = 32;
const nonceBytes = 12;
const tagBytes = 16;
/** What a sealed value starts with: the format version, then the id of the key that sealed it. */
const sealedPattern = /^v1\.([0-9a-f]{8})\.([\w-]+)$/;

/** A value that cannot be opened: sealed under a key this process does not hold, for another purpose, or altered. */
export class SecretUnreadableError extends Error {
  override readonly name = "SecretUnreadableError";
}

/**
 * Seals secrets that must be stored but read back (an addon's API key, a token Unleash shows again)
 * so that the store, its journal and its backups never hold them in clear.
 */
export interface SecretBox {
  /**
   * `plain` sealed as text: `v1.<key id>.<nonce, ciphertext and tag, base64url>`. `purpose` names
   * what the value is (`api-token`, `addon-parameter`): it is bound to the ciphertext, so a sealed
   * value copied into another field (one the API shows back) does not open there.
   */
  seal(plain: string, purpose: string): string;
  /** The clear value; throws SecretUnreadableError when it cannot be opened. */
  open(sealed: string, purpose: string): string;
  /** True when `value` has the shape of a sealed value (whoever's key sealed it). */
  isSealed(value: string): boolean;
  /** True when `sealed` was sealed under a key other than the current one: seal it again to finish a key rotation. */
  isStale(sealed: string): boolean;
  /** The current key's id, as the values it seals carry it. */
  readonly keyId: string;
}

/** A key's id: short, public, and not a way back to the key. */
export function secretsKeyId(key: Buffer): string {
  return createHash("sha256").update("vexil-secrets-key-id\0").update(key).digest("hex").slice(0, 8);
}

/**
 * Reads a key as configured: 32 bytes in base64 (`openssl rand -base64 32`) or hex
 * (`openssl rand -hex 32`). Throws with the reason when it is neither.
 */
export function parseSecretsKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const key = Buffer.from(value, "base64");
    if (key.length === keyBytes) return key;
  }
  throw new Error(`must be ${keyBytes} random bytes in base64 (openssl rand -base64 32) or hex (openssl rand -hex 32)`);
}

/** A new random key, in the base64 form `parseSecretsKey` reads. */
export function generateSecretsKey(): string {
  return randomBytes(keyBytes).toString("base64");
}

/**
 * Seals with `current`; opens what `current` or any of `previous` sealed, so values sealed before a
 * key rotation stay readable until they are sealed again.
 */
export function createSecretBox({ current, previous = [] }: { current: Buffer; previous?: readonly Buffer[] }): SecretBox {
  for (const key of [current, ...previous]) {
    if (key.length !== keyBytes) throw new RangeError(`A secrets key must be ${keyBytes} bytes, got ${key.length}`);
  }
  const keyId = secretsKeyId(current);
  const keys = new Map<string, Buffer>([...previous.map((key) => [secretsKeyId(key), key] as const), [keyId, current]]);
  const aad = (id: string, purpose: string) => Buffer.from(`v1.${id}.${purpose}`);

  return {
    keyId,
    seal(plain, purpose) {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv(algorithm, current, nonce);
      cipher.setAAD(aad(keyId, purpose));
      const body = Buffer.concat([nonce, cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `v1.${keyId}.${body.toString("base64url")}`;
    },
    open(sealed, purpose) {
      const match = sealedPattern.exec(sealed);
      if (!match) throw new SecretUnreadableError(`A stored ${purpose} is not a sealed value`);
      const [, id, encoded] = match as unknown as [string, string, string];
      const key = keys.get(id);
      if (!key) {
        throw new SecretUnreadableError(
          `A stored ${purpose} was sealed under key ${id}, which is neither the current secrets key (${keyId}) nor one of the previous keys configured`,
        );
      }
      const body = Buffer.from(encoded, "base64url");
      if (body.length < nonceBytes + tagBytes) throw new SecretUnreadableError(`A stored ${purpose} is truncated`);
      try {
        const decipher = createDecipheriv(algorithm, key, body.subarray(0, nonceBytes));
        decipher.setAAD(aad(id, purpose));
        decipher.setAuthTag(body.subarray(body.length - tagBytes));
        return Buffer.concat([decipher.update(body.subarray(nonceBytes, body.length - tagBytes)), decipher.final()]).toString("utf8");
      } catch (cause) {
        throw new SecretUnreadableError(
          `A stored ${purpose} sealed under key ${id} does not open: it was altered or sealed for another use`,
          {
            cause,
          },
        );
      }
    },
    isSealed: (value) => sealedPattern.test(value),
    isStale(sealed) {
      const id = sealedPattern.exec(sealed)?.[1];
      return id !== undefined && id !== keyId;
    },
  };
}
