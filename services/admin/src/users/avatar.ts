import { createHash } from "node:crypto";

/** Unleash's avatar for a person: the Gravatar of their email (md5 of it trimmed and lower-cased). */
export function avatarUrl(email: string): string {
  const hash = createHash("md5").update(email.trim().toLowerCase()).digest("hex");
  return `https://gravatar.com/avatar/${hash}?s=42&d=retro&r=g`;
}
