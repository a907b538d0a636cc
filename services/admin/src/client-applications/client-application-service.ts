import type {
  Application,
  ApplicationDetails,
  ApplicationList,
  ApplicationListQuery,
  ClientInstanceSeen,
  StrategyDefinition,
  UpdateApplication,
} from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import { systemActor, type Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import type { ClientApplicationDocument, ClientApplicationStore } from "./client-application-store.js";

function usageOf(doc: ClientApplicationDocument): Application["usage"] {
  const byProject = new Map<string, string[]>();
  for (const { project, environment } of doc.usage ?? []) {
    const environments = byProject.get(project) ?? [];
    byProject.set(project, [...environments, environment]);
  }
  return [...byProject].map(([project, environments]) => ({ project, environments: environments.sort() }));
}

function toApplication(doc: ClientApplicationDocument): Application {
  return {
    appName: doc._id,
    description: doc.description,
    url: doc.url,
    color: doc.color,
    icon: doc.icon,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy,
    strategies: doc.strategies ?? [],
    usage: usageOf(doc),
  };
}

/**
 * Client applications and their instances, as the SDKs announce them (through frontend-eval's
 * batches) and as people describe them. A new application gets Unleash's `application-created`
 * event, recorded with it.
 */
export class ClientApplicationService {
  constructor(
    private readonly deps: {
      applications: ClientApplicationStore;
      strategies: { list(): Promise<StrategyDefinition[]> };
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /** Records one batch of SDK registrations and metrics posts. */
  async recordSeen(instances: readonly ClientInstanceSeen[]): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      for (const seen of instances) {
        const at = new Date(seen.lastSeen);
        const created = await this.deps.applications.upsertSeen(
          {
            appName: seen.appName,
            strategies: seen.strategies,
            usage: seen.projects.map((project) => ({ project, environment: seen.environment })),
            seenToggles: seen.seenToggles,
            at,
            createdBy: systemActor.name,
          },
          tx.session,
        );
        if (created) await this.announce(tx, seen.appName, systemActor);
        await this.deps.applications.upsertInstance(
          {
            appName: seen.appName,
            instanceId: seen.instanceId,
            sdkType: seen.sdkType,
            environment: seen.environment,
            lastSeen: at,
            sdkVersion: seen.sdkVersion,
            clientIp: seen.clientIp,
            started: seen.started === undefined ? undefined : new Date(seen.started),
            interval: seen.interval,
            connectVia: seen.connectVia,
          },
          tx.session,
        );
      }
    });
  }

  async list(query: ApplicationListQuery): Promise<ApplicationList> {
    const { applications, total } = await this.deps.applications.list({
      nameContains: query.query || undefined,
      offset: query.offset,
      limit: query.limit,
    });
    return { applications: applications.map(toApplication), total };
  }

  async get(appName: string): Promise<ApplicationDetails> {
    const doc = await this.deps.applications.get(appName);
    if (!doc) throw new NotFoundError(`Could not find appName=${appName}`);
    const [definitions, instances] = await Promise.all([this.deps.strategies.list(), this.deps.applications.instancesOf(appName)]);
    return {
      appName: doc._id,
      description: doc.description,
      url: doc.url,
      color: doc.color,
      icon: doc.icon,
      createdAt: doc.createdAt.toISOString(),
      strategies: (doc.strategies ?? []).map(
        (name) => definitions.find((definition) => definition.name === name) ?? { name, notFound: true as const },
      ),
      instances: instances.map((instance) => ({
        appName: instance.appName,
        instanceId: instance.instanceId,
        sdkVersion: instance.sdkVersion,
        sdkType: instance.sdkType,
        clientIp: instance.clientIp,
        environment: instance.environment,
        lastSeen: instance.lastSeen.toISOString(),
        createdAt: instance.createdAt.toISOString(),
      })),
      seenToggles: [...(doc.seenToggles ?? [])].sort(),
      links: { self: `/api/applications/${appName}` },
    };
  }

  /** Sets what people describe an application with, creating it when it does not exist. */
  async update(appName: string, details: UpdateApplication, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const created = await this.deps.applications.upsertDetails(appName, details, this.deps.clock(), actor.name, tx.session);
      if (created) await this.announce(tx, appName, actor);
    });
  }

  /** Removes an application and its instances; removing one that does not exist is not an error. */
  async delete(appName: string): Promise<void> {
    await this.deps.unitOfWork.run((tx) => this.deps.applications.delete(appName, tx.session));
  }

  private async announce(tx: Transaction, appName: string, actor: Actor): Promise<void> {
    const doc = await this.deps.applications.get(appName, tx.session);
    if (!doc) return;
    const { _id, announced, seenToggles, usage, ...fields } = doc;
    await tx.record({
      type: "application-created",
      actor,
      data: { appName: _id, ...fields, strategies: fields.strategies ?? [] },
    });
  }
}
