import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.js";

// scrypt is slow by design and shares libuv's four threads with the other tests of the run.
describe("password hashing", { timeout: 60_000 }, () => {
  it("verifies the right password and refuses others", async () => {
    const stored = await hashPassword("Correct-horse-1");
    expect(stored).not.toContain("Correct-horse-1");
    expect(stored.startsWith("scrypt$")).toBe(true);
    expect(await verifyPassword("Correct-horse-1", stored)).toBe(true);
    expect(await verifyPassword("correct-horse-1", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("salts each hash", async () => {
    expect(await hashPassword("Same-password-1")).not.toBe(await hashPassword("Same-password-1"));
  });

  it("refuses a malformed stored hash", async () => {
    expect(await verifyPassword("x", "plaintext")).toBe(false);
  });
});
