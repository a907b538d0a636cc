import { ALL, createTokenSecret, parseTokenSecret, tokenDigest, type ApiTokenType } from "@vexil/auth";
import { ValidationError } from "@vexil/errors";
import type { ApiTokenDocument, ApiTokenStore } from "./api-token-store.js";

export interface SeedTokens {
  admin: string[];
  client: string[];
  frontend: string[];
}

/** Builds the record for a configured secret, refusing shapes Unleash would refuse. */
export function seededToken(secret: string, type: ApiTokenType, now: Date): ApiTokenDocument {
  const parsed = parseTokenSecret(secret);
  if (!parsed) throw new ValidationError(`Seeded ${type} token must look like <project>:<environment>.<secret>`);
  if (type === "admin" && (parsed.project !== ALL || parsed.environment !== ALL)) {
    throw new ValidationError("Seeded admin tokens must start with *:*.");
  }
  if (parsed.project === "[]") throw new ValidationError("Seeded tokens name one project or *");
  return {
    _id: secret,
    digest: tokenDigest(secret),
    tokenName: `init-${type}-token`,
    type,
    environment: parsed.environment,
    projects: [parsed.project],
    expiresAt: null,
    createdAt: now,
    seenAt: null,
    alias: null,
  };
}

/**
 * Adds configured tokens that are not stored yet. With none configured and none stored, creates
 * one admin token and returns its secret so the first start can show it once.
 */
export async function seedApiTokens(store: ApiTokenStore, seeds: SeedTokens, now: Date): Promise<{ createdAdminSecret?: string }> {
  const configured = [
    ...seeds.admin.map((s) => seededToken(s, "admin", now)),
    ...seeds.client.map((s) => seededToken(s, "client", now)),
    ...seeds.frontend.map((s) => seededToken(s, "frontend", now)),
  ];
  // Idempotent, also for two instances starting at once.
  for (const token of configured) await store.insertMissing(token);
  if (configured.length > 0 || (await store.count()) > 0) return {};
  const secret = createTokenSecret({ projects: [ALL], environment: ALL });
  const created = await store.insertFirstAdminToken({ ...seededToken(secret, "admin", now), tokenName: "vexil-admin" });
  return created ? { createdAdminSecret: secret } : {};
}
