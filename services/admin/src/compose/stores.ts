import type { SecretBox } from "@vexil/auth";
import type { StoreEngine } from "@vexil/store";
import { createAddonStore } from "../addons/addon-store.js";
import { createApiTokenStore } from "../api-tokens/api-token-store.js";
import { createChangeRequestStore } from "../change-requests/change-request-store.js";
import { createClientApplicationStore } from "../client-applications/client-application-store.js";
import { createContextFieldStore } from "../context/context-field-store.js";
import { createEnvironmentStore } from "../environments/environment-store.js";
import { EventStore } from "../events/event-store.js";
import { UnitOfWork } from "../events/unit-of-work.js";
import { createFavoriteStore, createFeatureStore } from "../features/feature-store.js";
import { createFlagLinkStore } from "../flag-links/flag-link-store.js";
import { createGroupStore } from "../groups/group-store.js";
import { createProjectMemberStore } from "../project-members/project-member-store.js";
import { createProjectStore } from "../projects/project-store.js";
import { createSegmentStore } from "../segments/segment-store.js";
import { createStrategyStore } from "../strategies/strategy-store.js";
import { createTagStore } from "../tags/tag-store.js";

/**
 * The first layer: the event log, the unit of work and the stores every other layer reads.
 * Stores depend on the engine (and the secret box for what they seal) only, so a slice may read
 * another's store without a cycle.
 */
export async function createStores(engine: StoreEngine, clock: () => Date, secrets: SecretBox) {
  const events = await EventStore.create(engine, clock);
  const unitOfWork = new UnitOfWork(engine, events);
  const stores = {
    apiTokens: await createApiTokenStore(engine),
    environments: createEnvironmentStore(engine),
    projects: await createProjectStore(engine),
    projectMembers: await createProjectMemberStore(engine),
    groups: await createGroupStore(engine),
    strategies: createStrategyStore(engine),
    features: await createFeatureStore(engine),
    favorites: await createFavoriteStore(engine, "feature_favorites"),
    projectFavorites: await createFavoriteStore(engine, "project_favorites"),
    contextFields: createContextFieldStore(engine),
    segments: await createSegmentStore(engine),
    tags: await createTagStore(engine),
    flagLinks: await createFlagLinkStore(engine),
    clientApplications: await createClientApplicationStore(engine),
    changeRequests: await createChangeRequestStore(engine),
    addons: await createAddonStore(engine, secrets),
  };
  return { events, unitOfWork, stores };
}
export type AdminStores = Awaited<ReturnType<typeof createStores>>["stores"];
