import type { ApiTokenType } from "./token-secret.js";
import { tokenDigest } from "./token-secret.js";

/** What every surface needs to know about a token to admit or refuse a request. */
export interface TokenGrant {
  digest: string;
  tokenName: string;
  type: ApiTokenType;
  environment: string;
  projects: string[];
  expiresAt: string | null;
  /** Personal access tokens act as their user. */
  userId?: number;
}

export interface TokenGrantSource {
  loadAll(): Promise<TokenGrant[]>;
}

/**
 * The in-memory token set each service checks requests against: filled from the shared source
 * (Redis in a cluster) at start and reloaded whenever the owner announces a change.
 */
export interface TokenSetOptions {
  /** Told of every admitted use, so the owner can record `seenAt`. */
  onUse?: (grant: TokenGrant) => void;
}

export class TokenSet {
  private byDigest = new Map<string, TokenGrant>();
  private readonly changeListeners = new Set<() => void>();

  constructor(
    private readonly source: TokenGrantSource,
    private readonly options: TokenSetOptions = {},
  ) {}

  recordUse(grant: TokenGrant): void {
    this.options.onUse?.(grant);
  }

  /** Reloads every grant; on failure the grants held so far stay in force. */
  async refresh(): Promise<void> {
    const grants = await this.source.loadAll();
    this.byDigest = new Map(grants.map((g) => [g.digest, g]));
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch {
        // A listener's trouble is its own; the reload itself succeeded.
      }
    }
  }

  lookup(secret: string): TokenGrant | undefined {
    return this.byDigest.get(tokenDigest(secret));
  }

  /** The grant held now for a token digest, e.g. to check an open stream's token is still good. */
  grantFor(digest: string): TokenGrant | undefined {
    return this.byDigest.get(digest);
  }

  /** Told after every reload, so long-lived connections can drop tokens revoked or narrowed meanwhile. */
  onChange(listener: () => void): { unsubscribe(): void } {
    this.changeListeners.add(listener);
    return { unsubscribe: () => void this.changeListeners.delete(listener) };
  }

  get size(): number {
    return this.byDigest.size;
  }
}
