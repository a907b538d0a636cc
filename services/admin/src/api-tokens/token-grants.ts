import { tokenDigest, type TokenGrant } from "@vexil/auth";
import type { ApiTokenDocument } from "./api-token-store.js";

/** What other services learn about a token: its scope and digest, never the secret. */
export function toGrant(token: ApiTokenDocument): TokenGrant {
  return {
    digest: tokenDigest(token._id),
    tokenName: token.tokenName,
    type: token.type,
    environment: token.environment,
    projects: token.projects,
    expiresAt: token.expiresAt ? token.expiresAt.toISOString() : null,
    ...(token.userId !== undefined ? { userId: token.userId } : {}),
  };
}
