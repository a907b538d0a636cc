import type {
  Addon,
  AddonConfig,
  AddonDeliveriesRequest,
  AddonList,
  AddonRequest,
  IntegrationEvents,
  IntegrationEventsQuery,
} from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { addonProviders } from "./addon-providers.js";
import type { AddonDocument, AddonStore } from "./addon-store.js";
import { maskParameters, validateAddon } from "./addon-validation.js";

export interface AddonServiceDeps {
  addons: AddonStore;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  /** Refuse target URLs on private, loopback and link-local addresses unless true. */
  allowPrivateUrls: boolean;
  /** Tells the delivery service that configurations changed, after the change committed. */
  announceChange(addonId: number): void;
  /** Asks the delivery service, which owns the delivery log, for one addon's entries. */
  fetchDeliveries(request: AddonDeliveriesRequest): Promise<IntegrationEvents>;
}

/** Addon (integration) configurations: validation, secrets masked on the way out, events on change. */
export class AddonService {
  constructor(private readonly deps: AddonServiceDeps) {}

  async list(): Promise<AddonList> {
    const docs = await this.deps.addons.list();
    return { addons: docs.map(toAddon), providers: addonProviders };
  }

  async get(id: number): Promise<Addon> {
    return toAddon(await this.require(id));
  }

  /** Every configuration with parameters in clear: for the delivery service only, over the bus. */
  async configs(): Promise<AddonConfig[]> {
    const docs = await this.deps.addons.list();
    return docs.map(({ _id, provider, enabled, parameters, events, projects, environments }) => ({
      id: _id,
      provider,
      enabled,
      parameters,
      events,
      projects,
      environments,
    }));
  }

  async create(input: AddonRequest, actor: Actor): Promise<Addon> {
    const { parameters } = validateAddon(input, { allowPrivateUrls: this.deps.allowPrivateUrls });
    const doc: AddonDocument = {
      _id: await this.deps.addons.nextId(),
      provider: input.provider,
      description: input.description ?? null,
      enabled: input.enabled,
      parameters,
      events: input.events,
      projects: input.projects ?? [],
      environments: input.environments ?? [],
      createdAt: this.deps.clock(),
    };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.addons.insert(doc, tx.session);
      await tx.record({ type: "addon-config-created", actor, data: eventData(doc) });
    });
    this.deps.announceChange(doc._id);
    return toAddon(doc);
  }

  async update(id: number, input: AddonRequest, actor: Actor): Promise<Addon> {
    const updated = await this.deps.unitOfWork.run(async (tx) => {
      const stored = await this.require(id, tx.session);
      // A provider change keeps no secrets: they belonged to the old target.
      const keep = stored.provider === input.provider ? stored.parameters : undefined;
      const { parameters } = validateAddon(input, { stored: keep, allowPrivateUrls: this.deps.allowPrivateUrls });
      const doc: AddonDocument = {
        ...stored,
        provider: input.provider,
        description: input.description ?? stored.description,
        enabled: input.enabled,
        parameters,
        events: input.events,
        projects: input.projects ?? [],
        environments: input.environments ?? [],
      };
      await this.deps.addons.replace(doc, tx.session);
      await tx.record({ type: "addon-config-updated", actor, data: eventData(doc), preData: eventData(stored) });
      return doc;
    });
    this.deps.announceChange(id);
    return toAddon(updated);
  }

  async remove(id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const stored = await this.require(id, tx.session);
      await this.deps.addons.delete(id, tx.session);
      await tx.record({ type: "addon-config-deleted", actor, preData: eventData(stored) });
    });
    this.deps.announceChange(id);
  }

  async deliveries(id: number, query: IntegrationEventsQuery): Promise<IntegrationEvents> {
    await this.require(id);
    return this.deps.fetchDeliveries({ addonId: id, ...query });
  }

  private async require(id: number, session?: Parameters<AddonStore["get"]>[1]): Promise<AddonDocument> {
    const doc = await this.deps.addons.get(id, session);
    if (!doc) throw new NotFoundError(`Could not find addon with id ${id}`);
    return doc;
  }
}

function toAddon(doc: AddonDocument): Addon {
  return {
    id: doc._id,
    provider: doc.provider,
    description: doc.description,
    enabled: doc.enabled,
    parameters: maskParameters(doc.provider, doc.parameters),
    events: doc.events,
    projects: doc.projects,
    environments: doc.environments,
    createdAt: doc.createdAt.toISOString(),
  };
}

/** What the event log says about an addon: never its parameters, which may hold secrets. */
function eventData(doc: AddonDocument) {
  return {
    id: doc._id,
    provider: doc.provider,
    enabled: doc.enabled,
    description: doc.description,
    events: doc.events,
    projects: doc.projects,
    environments: doc.environments,
  };
}
