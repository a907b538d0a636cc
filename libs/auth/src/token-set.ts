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

  constructor(
    private readonly source: TokenGrantSource,
    private readonly options: TokenSetOptions = {},
  ) {}

  recordUse(grant: TokenGrant): void {
    this.options.onUse?.(grant);
  }

  async refresh(): Promise<void> {
    const grants = await this.source.loadAll();
    this.byDigest = new Map(grants.map((g) => [g.digest, g]));
  }

  lookup(secret: string): TokenGrant | undefined {
    return this.byDigest.get(tokenDigest(secret));
  }

  get size(): number {
    return this.byDigest.size;
  }
}
