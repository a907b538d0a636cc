import type { Logger } from "@vexil/logger";
import { openSharedTokenSet, type Engines } from "@vexil/runtime";
import { AccessService } from "./access/access-service.js";
import { createApiTokenStore } from "./api-tokens/api-token-store.js";
import type { AdminConfig } from "./config.js";
import { createEnvironmentStore } from "./environments/environment-store.js";
import { EventStore } from "./events/event-store.js";
import { UnitOfWork } from "./events/unit-of-work.js";
import { createProjectStore } from "./projects/project-store.js";
import { createStrategyStore } from "./strategies/strategy-store.js";
import { StrategyService } from "./strategies/strategy-service.js";

export type AdminSettings = Pick<AdminConfig, "INIT_ADMIN_API_TOKENS" | "INIT_CLIENT_API_TOKENS" | "INIT_FRONTEND_API_TOKENS">;

/** Builds the admin service's stores and domain services top-down from the engines it is given. */
export async function createAdminDeps({
  engines,
  settings,
  logger,
  clock = () => new Date(),
}: {
  engines: Engines;
  settings: AdminSettings;
  logger: Logger;
  clock?: () => Date;
}) {
  const { store, bus, cache } = engines;
  const events = await EventStore.create(store, clock);
  const unitOfWork = new UnitOfWork(store, events);
  const stores = {
    apiTokens: await createApiTokenStore(store),
    environments: createEnvironmentStore(store),
    projects: await createProjectStore(store),
    strategies: createStrategyStore(store),
  };
  const sharedTokens = await openSharedTokenSet(cache, bus);
  return {
    engines,
    settings,
    logger,
    clock,
    events,
    unitOfWork,
    stores,
    sharedTokens,
    access: new AccessService(),
    strategies: new StrategyService({ strategies: stores.strategies }),
  };
}
export type AdminDeps = Awaited<ReturnType<typeof createAdminDeps>>;
