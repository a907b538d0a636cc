import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretUnreadableError, createSecretBox, generateSecretsKey, parseSecretsKey, secretsKeyId } from "./secret-box.js";

const key = () => randomBytes(32);

describe("secret box", () => {
  it("seals a value so that it opens again, and the sealed text holds nothing of it", () => {
    const box = createSecretBox({ current: key() });
    const plain = "dd-api-key-0123456789abcdef ünïcode";
    const sealed = box.seal(plain, "addon-parameter");
    expect(sealed).toMatch(new RegExp(`^v1\\.${box.keyId}\\.[\\w-]+$`));
    expect(sealed).not.toContain("0123456789");
    expect(box.open(sealed, "addon-parameter")).toBe(plain);
    // A fresh nonce each time: the same value never seals to the same text.
    expect(box.seal(plain, "addon-parameter")).not.toBe(sealed);
    expect(box.isSealed(sealed)).toBe(true);
    expect(box.isSealed(plain)).toBe(false);
  });

  it("does not open a value sealed for another purpose, altered, or sealed under a key it does not hold", () => {
    const box = createSecretBox({ current: key() });
    const sealed = box.seal("secret", "addon-parameter");
    expect(() => box.open(sealed, "api-token")).toThrow(SecretUnreadableError);
    const body = Buffer.from(sealed.split(".")[2]!, "base64url");
    body[body.length - 20]! ^= 1;
    expect(() => box.open(`v1.${box.keyId}.${body.toString("base64url")}`, "addon-parameter")).toThrow(/altered/);
    expect(() => box.open(`v1.${box.keyId}.AAAA`, "addon-parameter")).toThrow(/truncated/);
    expect(() => box.open("secret", "addon-parameter")).toThrow(/not a sealed value/);
    const other = createSecretBox({ current: key() });
    expect(() => other.open(sealed, "addon-parameter")).toThrow(new RegExp(`sealed under key ${box.keyId}`));
  });

  it("opens what a previous key sealed and says it is stale, so a rotation can seal it again", () => {
    const old = key();
    const before = createSecretBox({ current: old });
    const sealed = before.seal("secret", "api-token");
    const after = createSecretBox({ current: key(), previous: [old] });
    expect(after.open(sealed, "api-token")).toBe("secret");
    expect(after.isStale(sealed)).toBe(true);
    const resealed = after.seal("secret", "api-token");
    expect(after.isStale(resealed)).toBe(false);
    expect(() => before.open(resealed, "api-token")).toThrow(SecretUnreadableError);
  });

  it("reads keys in base64 and hex, and refuses anything that is not 32 bytes", () => {
    const raw = key();
    expect(parseSecretsKey(raw.toString("base64"))).toEqual(raw);
    expect(parseSecretsKey(` ${raw.toString("hex")}\n`)).toEqual(raw);
    expect(parseSecretsKey(generateSecretsKey())).toHaveLength(32);
    for (const bad of ["", "short", randomBytes(16).toString("base64"), randomBytes(33).toString("hex"), "é".repeat(44)]) {
      expect(() => parseSecretsKey(bad)).toThrow(/32 random bytes/);
    }
    expect(() => createSecretBox({ current: randomBytes(16) })).toThrow(RangeError);
  });

  it("names keys by an id that depends on the key alone", () => {
    const raw = key();
    expect(secretsKeyId(raw)).toBe(secretsKeyId(Buffer.from(raw)));
    expect(secretsKeyId(raw)).toMatch(/^[0-9a-f]{8}$/);
    expect(secretsKeyId(key())).not.toBe(secretsKeyId(raw));
  });
});
