import type { Logger } from "@vexil/logger";
import type { AddonConfigs } from "../addon-configs.js";
import type { AddonDeliverySettings } from "../config.js";
import { formatDelivery } from "../providers/formatters.js";
import { TargetRefused } from "@vexil/outbound";
import { retryDelay } from "./backoff.js";
import type { DeliveryDocument, DeliveryStore } from "./delivery-store.js";
import type { Sender } from "./http-sender.js";

/** The delivery settings (private addresses are the sender's concern) plus what the queue works with. */
export interface DeliveryQueueOptions extends Omit<AddonDeliverySettings, "allowPrivateUrls"> {
  store: DeliveryStore;
  configs: AddonConfigs;
  send: Sender;
  logger: Logger;
  clock?: () => Date;
  random?: () => number;
  /** Called after each recorded attempt with its outcome, for the metrics. */
  onAttempt?: (outcome: "success" | "retrying" | "failed") => void;
}

/**
 * One worker per addon works through that addon's deliveries in enqueue order, waiting out the
 * backoff of its head before the next: order per addon holds, and a slow or dead target only
 * delays its own addon. State lives in the store, so a restarted process picks up where it was.
 *
 * Several replicas may share the store. A worker runs only while its replica holds the addon's
 * lease (renewed every third of `leaseMs`), so one replica at a time works a queue, in order; and
 * each attempt is made under a claim on the delivery, sized to outlast the requests, so even a
 * replica whose lease lapsed mid-request cannot be joined by another on the same delivery. Every
 * `leaseMs` each replica looks for open queues, taking over those whose holder stopped renewing.
 */
export class DeliveryQueue {
  private readonly workers = new Map<number, Promise<void>>();
  /** Addons whose worker must look again after finishing its current pass. */
  private readonly rekick = new Set<number>();
  private readonly timers = new Map<number, { timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  private stopping = false;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  /** The sweeper's look for open queues under way, which `stop` waits for. */
  private sweeping: Promise<void> = Promise.resolve();
  private readonly clock: () => Date;
  private readonly renewEveryMs: number;

  constructor(private readonly options: DeliveryQueueOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.renewEveryMs = Math.max(1, Math.floor(options.leaseMs / 3));
  }

  /** Resumes every addon with unfinished deliveries (after a restart), then keeps looking for them. */
  async resume(): Promise<void> {
    await this.kickOpenQueues();
    this.sweeper ??= setInterval(() => {
      this.sweeping = this.kickOpenQueues().catch((err) => this.options.logger.error({ err }, "could not look for open delivery queues"));
    }, this.options.leaseMs);
  }

  private async kickOpenQueues(): Promise<void> {
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

  /**
   * Lets attempts in flight finish and be recorded and gives up the leases; waiting workers stop at
   * once. When it resolves the queue reads and writes the store no more.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    for (const { timer, wake } of this.timers.values()) {
      clearTimeout(timer);
      wake();
    }
    await this.sweeping;
    await Promise.allSettled([...this.workers.values()]);
  }

  private async work(addonId: number): Promise<void> {
    const { store, replicaId, leaseMs } = this.options;
    let leased = false;
    try {
      while (!this.stopping) {
        // Taken or renewed on every turn; held by another replica, that one works the queue.
        leased = await store.acquireLease(addonId, replicaId, this.clock(), leaseMs);
        if (!leased) return;
        const head = await store.nextOpen(addonId);
        if (!head) break;
        const wait = head.nextAttemptAt - this.clock().getTime();
        if (wait > 0) {
          await this.sleep(addonId, Math.min(wait, this.renewEveryMs));
          continue;
        }
        const busyUntil = await this.attempt(head);
        // Another replica's claim (its lease lapsed mid-request): wait for it to finish or expire.
        if (busyUntil > 0) await this.sleep(addonId, Math.min(Math.max(busyUntil - this.clock().getTime(), 10), this.renewEveryMs));
      }
    } finally {
      if (leased) await store.releaseLease(addonId, replicaId);
    }
    // A delivery another replica queued between the last look and the release found the lease held.
    if (!this.stopping && (await store.nextOpen(addonId))) this.rekick.add(addonId);
  }

  private sleep(addonId: number, ms: number): Promise<void> {
    // A worker that was busy when stop() woke the sleepers must not start a wait of its own.
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.timers.delete(addonId);
        resolve();
      };
      this.timers.set(addonId, { timer: setTimeout(wake, ms), wake });
    });
  }

  /** Makes one attempt under a claim on the delivery; when another replica holds it, until when (else 0). */
  private async attempt(head: DeliveryDocument): Promise<number> {
    const { store, configs, send, logger, maxAttempts, replicaId } = this.options;
    const attempt = head.attempt + 1;
    const partsDone = [...head.partsDone];
    let statusCode: number | null = null;
    let failure: { details: string; final: boolean } | undefined;
    const refusal = (err: unknown) => {
      const refused = err instanceof TargetRefused;
      return { details: refused ? `Refused: ${(err as Error).message}` : `Request failed: ${(err as Error).message}`, final: refused };
    };

    let requests: ReturnType<typeof formatDelivery> = [];
    const addon = await configs.get(head.addonId);
    if (!addon) failure = { details: "The addon was deleted before the event could be delivered", final: true };
    else if (!addon.enabled) failure = { details: "The addon was disabled before the event could be delivered", final: true };
    else {
      try {
        requests = formatDelivery(addon, head.event, { uiUrl: this.options.uiUrl, idempotencyKey: head._id });
      } catch (err) {
        failure = refusal(err);
      }
    }

    // Long enough for every request to time out, with a lease's length to spare for the store.
    const claimMs = requests.length * this.options.requestTimeoutMs + this.options.leaseMs;
    const claim = await store.claim(head, replicaId, this.clock(), claimMs);
    if ("busyUntil" in claim) return claim.busyUntil;
    const delivery = claim.delivery;

    if (!failure) {
      try {
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
        failure = refusal(err);
      }
    }

    const now = this.clock();
    const record = async (outcome: Parameters<DeliveryStore["recordAttempt"]>[2]) => {
      if (!(await store.recordAttempt(delivery, replicaId, outcome, now))) {
        // The claim expired and another replica took the delivery: its attempt is the one recorded.
        logger.warn({ addonId: delivery.addonId, key: delivery._id, attempt }, "delivery claim lost before the attempt was recorded");
      }
    };
    if (!failure) {
      await record({ state: "success", statusCode, details: `Delivered (status ${statusCode})`, nextAttemptAt: 0, partsDone });
      this.options.onAttempt?.("success");
      return 0;
    }
    const exhausted = failure.final || attempt >= maxAttempts;
    const nextAttemptAt = exhausted
      ? 0
      : now.getTime() + retryDelay(attempt, { baseMs: this.options.backoffBaseMs, maxMs: this.options.backoffMaxMs }, this.options.random);
    const details = exhausted && !failure.final ? `${failure.details} (gave up after ${attempt} attempts)` : failure.details;
    await record({ state: exhausted ? "failed" : "retrying", statusCode, details, nextAttemptAt, partsDone });
    this.options.onAttempt?.(exhausted ? "failed" : "retrying");
    logger[exhausted ? "warn" : "debug"](
      { addonId: delivery.addonId, key: delivery._id, attempt, details },
      exhausted ? "delivery failed" : "delivery will be retried",
    );
    return 0;
  }
}
