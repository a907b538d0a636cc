import { BusRequestError, type Bus } from "@vexil/bus";
import type { Cache } from "@vexil/cache";
import {
  listSignalsReplySchema,
  listSignalsSubject,
  sharedSignalEndpoints,
  type ListSignalsRequest,
  type SharedSignalEndpoint,
} from "@vexil/contracts";
import { NotReady } from "@vexil/errors";
import type { SignalReader } from "./signal-endpoint-service.js";

/** Replaces the endpoints signal-ingest reads, then tells every ingest instance to reload them. */
export function shareSignalEndpoints(cache: Cache, bus: Bus) {
  return async (endpoints: SharedSignalEndpoint[]): Promise<void> => {
    await cache.setJson(sharedSignalEndpoints.cacheKey, endpoints);
    bus.publish(sharedSignalEndpoints.changedSubject, { count: endpoints.length });
  };
}

/** Asks signal-ingest, which owns received signals, for a page of them. */
export function busSignalReader(bus: Bus, timeoutMs = 5000): SignalReader {
  return {
    async list(endpointId, { limit, offset }) {
      const request: ListSignalsRequest = { endpointId, limit, offset };
      try {
        const reply = await bus.request(listSignalsSubject, request, { timeoutMs });
        return listSignalsReplySchema.parse(reply).signals;
      } catch (err) {
        if (err instanceof BusRequestError && err.code !== "remote") {
          throw new NotReady("The signal-ingest service is not answering; try again shortly");
        }
        throw err;
      }
    },
  };
}
