import { hostname } from "node:os";
import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv } from "@vexil/runtime";

export const addonDeliveryEnv = platformEnv.extend({
  PORT: envSchemas.port.default(4246),
  /** Lets addon targets resolve to private, loopback or link-local addresses (local setups and tests). */
  ADDONS_ALLOW_PRIVATE_URLS: envSchemas.booleanString.default("false"),
  /** Attempts per (event, addon) before the delivery is recorded as failed. */
  ADDONS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  /** First retry delay; each later one doubles, with jitter, up to ADDONS_BACKOFF_MAX_MS. */
  ADDONS_BACKOFF_BASE_MS: z.coerce.number().int().min(0).default(1000),
  ADDONS_BACKOFF_MAX_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5 * 60_000),
  ADDONS_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** How long a replica's lease on an addon's queue lasts unless renewed: the takeover delay after a crash. */
  ADDONS_LEASE_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Days finished deliveries and their log entries are kept; 0 keeps them for good. */
  ADDONS_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /** This replica's name in leases; must differ between replicas sharing one store. Defaults to the host name. */
  ADDONS_REPLICA_ID: z.string().min(1).optional(),
  /** Base of the flag links in messages; Unleash's name first, then Vexil's public address. */
  UNLEASH_URL: envSchemas.url.optional(),
  PUBLIC_URL: envSchemas.url.optional(),
});
export type AddonDeliveryConfig = z.infer<typeof addonDeliveryEnv>;

/** What the delivery service needs from its configuration; every field has a default. */
export interface AddonDeliverySettings {
  allowPrivateUrls: boolean;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  requestTimeoutMs: number;
  /** Lease on an addon's queue; renewed every third of it while the replica works that queue. */
  leaseMs: number;
  /**
   * Names this replica in leases and claims. A restarted process with the same name takes its
   * own leases back at once; two live replicas with the same name would both send.
   */
  replicaId: string;
  /** Base URL of the admin UI, for links to flags. */
  uiUrl: string;
  /** Days finished deliveries and the delivery log are kept (0: for good); unfinished ones always stay. */
  retentionDays: number;
}

export const defaultDeliverySettings: AddonDeliverySettings = {
  allowPrivateUrls: false,
  maxAttempts: 5,
  backoffBaseMs: 1000,
  backoffMaxMs: 5 * 60_000,
  requestTimeoutMs: 10_000,
  leaseMs: 30_000,
  replicaId: hostname(),
  uiUrl: "http://localhost:4242",
  retentionDays: 30,
};

export function deliverySettingsFrom(config: AddonDeliveryConfig): AddonDeliverySettings {
  return {
    allowPrivateUrls: config.ADDONS_ALLOW_PRIVATE_URLS,
    maxAttempts: config.ADDONS_MAX_ATTEMPTS,
    backoffBaseMs: config.ADDONS_BACKOFF_BASE_MS,
    backoffMaxMs: config.ADDONS_BACKOFF_MAX_MS,
    requestTimeoutMs: config.ADDONS_REQUEST_TIMEOUT_MS,
    leaseMs: config.ADDONS_LEASE_MS,
    replicaId: config.ADDONS_REPLICA_ID ?? defaultDeliverySettings.replicaId,
    uiUrl: config.UNLEASH_URL ?? config.PUBLIC_URL ?? defaultDeliverySettings.uiUrl,
    retentionDays: config.ADDONS_DELIVERY_RETENTION_DAYS,
  };
}
