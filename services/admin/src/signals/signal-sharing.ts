import { BusRequestError, type Bus, type Subscription } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import { cacheKeys, topics, type ListSignalsRequest, type SharedSignalEndpoint } from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { SignalReader } from "./signal-endpoint-service.js";

/**
 * Replaces the endpoints signal-ingest reads, then tells every ingest instance to reload them. A
 * cache that is away does not fail the change already committed: ingest then asks admin directly
 * (`serveSharedSignalEndpoints`), and the cache is written again when it is back.
 */
export function shareSignalEndpoints(cache: Cache, bus: Bus, logger: Pick<Logger, "warn">) {
  return async (endpoints: SharedSignalEndpoint[]): Promise<void> => {
    try {
      await cache.setJson(cacheKeys.signalEndpoints, endpoints);
    } catch (err) {
      logger.warn({ err }, "could not write the signal endpoints to the cache; signal-ingest will ask admin");
    }
    bus.publish(topics.signalEndpointsChanged, { count: endpoints.length });
  };
}

/** Answers ingest instances that found the cache without the endpoints, and puts them back there. */
export function serveSharedSignalEndpoints(cache: Cache, bus: Bus, list: () => Promise<SharedSignalEndpoint[]>): Subscription {
  return bus.reply(
    topics.signalEndpoints,
    async () => {
      const endpoints = await list();
      cache.setJson(cacheKeys.signalEndpoints, endpoints).catch(() => undefined);
      return endpoints;
    },
    { queue: "admin" },
  );
}

/** Asks signal-ingest, which owns received signals, for a page of them. */
export function busSignalReader(bus: Bus, timeoutMs = 5000): SignalReader {
  return {
    async list(endpointId, { limit, offset }) {
      const request: ListSignalsRequest = { endpointId, limit, offset };
      try {
        return (await bus.request(topics.signalsList, request, { timeoutMs })).signals;
      } catch (err) {
        if (err instanceof BusRequestError && err.code !== "remote") {
          throw new NotReady("The signal-ingest service is not answering; try again shortly");
        }
        throw err;
      }
    },
  };
}
