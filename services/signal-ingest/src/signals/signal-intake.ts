import { tokenDigest } from "@vexil/auth";
import { AuthenticationRequired, ContentTooLarge, NoAccessError, NotFoundError, TooManyRequests } from "@vexil/errors";
import type { SharedEndpoints } from "../endpoints/shared-endpoints.js";
import type { RateLimiter } from "./rate-limit.js";
import type { SignalStore } from "./signal-store.js";

export interface IncomingSignal {
  endpointName: string;
  /** The token, with or without `Bearer `; undefined when the request had none. */
  secret: string | undefined;
  payload: unknown;
  payloadBytes: number;
}

export interface SignalIntakeDeps {
  endpoints: SharedEndpoints;
  signals: SignalStore;
  rateLimiter: RateLimiter;
  payloadLimitBytes: number;
  clock: () => Date;
  /** Called after a signal is stored, so its announcement goes out now rather than on the next poll. */
  onStored: () => void;
  /** Called with `accepted` or the refusal's error name, for the metrics. */
  onOutcome?: (outcome: string) => void;
}

/**
 * Takes one signal: within the size (413), a known signal token (401 for none or an unknown one,
 * checked first so that callers without a token learn nothing of which endpoint names exist, as
 * Unleash answers them), a known, enabled endpoint (404), the token of that endpoint (403 for
 * another endpoint's) and, once the caller is known, the endpoint's rate (429), as Unleash limits
 * signal endpoints after authentication.
 */
export class SignalIntake {
  constructor(private readonly deps: SignalIntakeDeps) {}

  async receive(signal: IncomingSignal): Promise<{ signalId: number }> {
    try {
      const stored = await this.take(signal);
      this.deps.onOutcome?.("accepted");
      return stored;
    } catch (err) {
      this.deps.onOutcome?.(err instanceof Error ? err.name : "Error");
      throw err;
    }
  }

  private async take({ endpointName, secret, payload, payloadBytes }: IncomingSignal): Promise<{ signalId: number }> {
    const { endpoints, signals, rateLimiter, payloadLimitBytes } = this.deps;
    if (payloadBytes > payloadLimitBytes) {
      throw new ContentTooLarge(`The signal payload is ${payloadBytes} bytes; the limit is ${payloadLimitBytes} bytes`);
    }
    if (!secret) throw new AuthenticationRequired("You must provide a signal endpoint token in the Authorization header");
    const token = await endpoints.token(tokenDigest(secret));
    if (!token) throw new AuthenticationRequired("The provided signal endpoint token is not valid");
    const endpoint = await endpoints.endpoint(endpointName);
    if (!endpoint || !endpoint.enabled) throw new NotFoundError(`Could not find an enabled signal endpoint named ${endpointName}`);
    if (token.endpointId !== endpoint.id) throw new NoAccessError(`a token of signal endpoint ${endpointName}`);
    const retryAfter = await rateLimiter.hit(String(endpoint.id));
    if (retryAfter !== null) {
      throw new TooManyRequests(`Signal endpoint ${endpointName} takes at most the configured number of signals per second`, retryAfter);
    }
    const signalId = await signals.nextId();
    await signals.insert({
      _id: signalId,
      endpointId: endpoint.id,
      endpointName: endpoint.name,
      tokenId: token.id,
      tokenName: token.name,
      payload: payload ?? {},
      createdAt: this.deps.clock(),
      announced: false,
    });
    this.deps.onStored();
    return { signalId };
  }
}
