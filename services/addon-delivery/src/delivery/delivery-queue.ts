import type { Logger } from "@vexil/logger";
import type { AddonConfigs } from "../addon-configs.js";
import { formatDelivery } from "../providers/formatters.js";
import { TargetRefused } from "@vexil/outbound";
import { retryDelay } from "./backoff.js";
import type { DeliveryDocument, DeliveryStore } from "./delivery-store.js";
import type { Sender } from "./http-sender.js";

export interface DeliveryQueueOptions {
  store: DeliveryStore;
  configs: AddonConfigs;
  send: Sender;
  logger: Logger;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  uiUrl: string;
  clock?: () => Date;
  random?: () => number;
}

/**
 * One worker per addon works through that addon's deliveries in enqueue order, waiting out the
 * backoff of its head before the next: order per addon holds, and a slow or dead target only
 * delays its own addon. State lives in the store, so a restarted process picks up where it was.
 */
export class DeliveryQueue {
  private readonly workers = new Map<number, Promise<void>>();
  /** Addons whose worker must look again after finishing its current pass. */
  private readonly rekick = new Set<number>();
  private readonly timers = new Map<number, { timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  private stopping = false;
  private readonly clock: () => Date;

  constructor(private readonly options: DeliveryQueueOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Resumes every addon with unfinished deliveries (after a restart). */
  async resume(): Promise<void> {
    for (const addonId of await this.options.store.addonsWithOpenDeliveries()) this.kick(addonId);
  }

  /** Makes sure the addon's worker runs; a worker waiting out a backoff keeps waiting. */
  kick(addonId: number): void {
    if (this.stopping) return;
    if (this.workers.has(addonId)) {
      this.rekick.add(addonId);
      return;
    }
    const run = this.work(addonId)
      .catch(async (err) => {
        // The store or admin is unreachable: try again later rather than leave the queue idle.
        this.options.logger.error({ err, addonId }, "delivery worker failed; retrying");
        if (this.stopping) return;
        await this.sleep(addonId, Math.max(this.options.backoffBaseMs, 100));
        this.rekick.add(addonId);
      })
      .finally(() => {
        this.workers.delete(addonId);
        if (this.rekick.delete(addonId)) this.kick(addonId);
      });
    this.workers.set(addonId, run);
  }

  /** Lets attempts in flight finish and be recorded; waiting workers stop at once. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const { timer, wake } of this.timers.values()) {
      clearTimeout(timer);
      wake();
    }
    await Promise.allSettled([...this.workers.values()]);
  }

  private async work(addonId: number): Promise<void> {
    while (!this.stopping) {
      const head = await this.options.store.nextOpen(addonId);
      if (!head) return;
      const wait = head.nextAttemptAt - this.clock().getTime();
      if (wait > 0) {
        await this.sleep(addonId, wait);
        continue;
      }
      await this.attempt(head);
    }
  }

  private sleep(addonId: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.timers.delete(addonId);
        resolve();
      };
      this.timers.set(addonId, { timer: setTimeout(wake, ms), wake });
    });
  }

  private async attempt(delivery: DeliveryDocument): Promise<void> {
    const { store, configs, send, logger, maxAttempts } = this.options;
    const attempt = delivery.attempt + 1;
    const partsDone = [...delivery.partsDone];
    let statusCode: number | null = null;
    let failure: { details: string; final: boolean } | undefined;

    const addon = await configs.get(delivery.addonId);
    if (!addon) failure = { details: "The addon was deleted before the event could be delivered", final: true };
    else if (!addon.enabled) failure = { details: "The addon was disabled before the event could be delivered", final: true };
    else {
      try {
        const requests = formatDelivery(addon, delivery.event, { uiUrl: this.options.uiUrl, idempotencyKey: delivery._id });
        for (const [part, request] of requests.entries()) {
          if (partsDone.includes(part)) continue;
          const result = await send(request);
          statusCode = result.statusCode;
          if (result.statusCode < 200 || result.statusCode >= 300) {
            failure = { details: `Target answered ${result.statusCode}${result.body ? `: ${result.body}` : ""}`, final: false };
            break;
          }
          partsDone.push(part);
        }
      } catch (err) {
        const refused = err instanceof TargetRefused;
        failure = { details: refused ? `Refused: ${(err as Error).message}` : `Request failed: ${(err as Error).message}`, final: refused };
      }
    }

    const now = this.clock();
    if (!failure) {
      await store.recordAttempt(delivery, { state: "success", statusCode, details: `Delivered (status ${statusCode})`, nextAttemptAt: 0, partsDone }, now);
      return;
    }
    const exhausted = failure.final || attempt >= maxAttempts;
    const nextAttemptAt = exhausted
      ? 0
      : now.getTime() + retryDelay(attempt, { baseMs: this.options.backoffBaseMs, maxMs: this.options.backoffMaxMs }, this.options.random);
    const details = exhausted && !failure.final ? `${failure.details} (gave up after ${attempt} attempts)` : failure.details;
    await store.recordAttempt(delivery, { state: exhausted ? "failed" : "retrying", statusCode, details, nextAttemptAt, partsDone }, now);
    logger[exhausted ? "warn" : "debug"]({ addonId: delivery.addonId, key: delivery._id, attempt, details }, exhausted ? "delivery failed" : "delivery will be retried");
  }
}
