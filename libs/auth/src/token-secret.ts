import { createHash, randomBytes } from "node:crypto";

export type ApiTokenType = "client" | "admin" | "frontend";

export const ALL = "*";

/**
 * Unleash's secret shape: `<project>:<environment>.<random>`; `*:*.` for admin tokens and `[]:` when
 * a token spans several projects (the projects then live on the record, not in the secret).
 */
export function createTokenSecret({ projects, environment }: { projects: string[]; environment: string }): string {
  const projectPart = projects.length === 1 ? projects[0] : "[]";
  return `${projectPart}:${environment}.${randomBytes(28).toString("hex")}`;
}

export interface ParsedTokenSecret {
  project: string;
  environment: string;
}

/** Reads the scope a secret announces; null when it is not shaped like a token at all. */
export function parseTokenSecret(secret: string): ParsedTokenSecret | null {
  const match = /^([^:\s]+):([^.\s]+)\.(\S+)$/.exec(secret);
  if (!match) return null;
  return { project: match[1], environment: match[2] };
}

/** Lookups go by digest so the shared token set (in Redis) never holds usable secrets. */
export function tokenDigest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
