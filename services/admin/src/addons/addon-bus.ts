import { topics, type AddonDeliveriesRequest, type IntegrationEvents } from "@vexil/contracts";
import { BusRequestError, type Bus, type Subscription } from "@vexil/bus";
import { NotReady } from "@vexil/errors";
import type { AddonService, AddonServiceDeps } from "./addon-service.js";

/** How long admin waits for the delivery service to answer a delivery-log request. */
const deliveriesTimeoutMs = 5000;

/** The addon service's two conversations with the delivery service, over the bus. */
export function addonBusClient(bus: Bus): Pick<AddonServiceDeps, "announceChange" | "fetchDeliveries"> {
  return {
    announceChange(addonId) {
      bus.publish(topics.addonsChanged, { addonId });
    },
    async fetchDeliveries(request: AddonDeliveriesRequest): Promise<IntegrationEvents> {
      try {
        return await bus.request(topics.addonDeliveries, request, { timeoutMs: deliveriesTimeoutMs });
      } catch (err) {
        if (err instanceof BusRequestError && err.code !== "remote") {
          throw new NotReady(`The addon delivery service is not answering (${err.code}); try again shortly`);
        }
        throw err;
      }
    },
  };
}

/** Answers the delivery service's `addons.list` requests with every configuration, in clear. */
export function serveAddonConfigs(bus: Bus, addons: AddonService): Subscription {
  return bus.reply(topics.addonsList, async () => ({ addons: await addons.configs() }));
}
