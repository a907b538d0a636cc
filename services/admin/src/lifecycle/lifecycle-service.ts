import type { CompleteLifecycleBody, LifecycleStageEntry } from "@vexil/contracts";
import type { Actor } from "../access/actor.js";
import { systemActor } from "../access/actor.js";
import type { EventDocument } from "../events/event-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument, type LifecycleEntry } from "../features/feature-model.js";
import type { FeatureChangeHook } from "../features/feature-service.js";
import type { LifecycleFlags } from "./lifecycle-flags.js";
import { complete, currentStage, moveForActivity, uncomplete } from "./lifecycle-rules.js";

const toEntry = (entry: LifecycleEntry): LifecycleStageEntry => ({
  stage: entry.stage,
  enteredStageAt: entry.enteredStageAt.toISOString(),
  ...(entry.status ? { status: entry.status } : {}),
  ...(entry.statusValue ? { statusValue: entry.statusValue } : {}),
});

/** Environment name → type, kept current from environment events so the flag write hook stays synchronous. */
export class EnvironmentTypes {
  private types = new Map<string, string>();

  constructor(private readonly source: { list(): Promise<{ name: string; type: string }[]> }) {}

  async refresh(): Promise<void> {
    this.types = new Map((await this.source.list()).map((e) => [e.name, e.type]));
  }

  typeOf(environment: string): string | undefined {
    return this.types.get(environment);
  }

  /** A unit-of-work listener: reloads after any environment change. */
  listener(onError: (err: unknown) => void) {
    return (events: EventDocument[]) => {
      if (events.some((e) => e.type.startsWith("environment-"))) this.refresh().catch(onError);
    };
  }
}

export class LifecycleService {
  constructor(
    private readonly deps: {
      features: LifecycleFlags;
      environmentTypes: EnvironmentTypes;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /**
   * Runs inside every flag write: an environment switched on moves the flag to `pre-live`, or to
   * `live` when the environment's type is production, in the same transaction as the switch.
   */
  readonly onFeatureChange: FeatureChangeHook = (before, after, now) => {
    let lifecycle = after.lifecycle;
    for (const [environment, state] of Object.entries(after.environments)) {
      if (!state.enabled || (before && environmentOf(before, environment)?.enabled)) continue;
      lifecycle = moveForActivity(lifecycle, this.deps.environmentTypes.typeOf(environment) ?? "development", now);
    }
    return lifecycle === after.lifecycle ? after : { ...after, lifecycle };
  };

  /** For the metrics path: an SDK reported the flag in an environment. Changes nothing when the stage already covers it. */
  async featureSeen(name: string, environment: string): Promise<void> {
    const feature = await this.deps.features.find(name);
    if (!feature || feature.archived) return;
    const type = this.deps.environmentTypes.typeOf(environment) ?? "development";
    if (moveForActivity(feature.lifecycle, type, this.deps.clock()).length === feature.lifecycle.length) return;
    await this.deps.unitOfWork.run((tx) =>
      this.deps.features.change(tx, systemActor, name, (doc) => ({
        ...doc,
        lifecycle: moveForActivity(doc.lifecycle, type, this.deps.clock()),
      })),
    );
  }

  async get(project: string, name: string): Promise<LifecycleStageEntry[]> {
    const feature = await this.findInProject(project, name);
    return feature.lifecycle.map(toEntry);
  }

  async complete(project: string, name: string, body: CompleteLifecycleBody, actor: Actor): Promise<void> {
    await this.deps.features.getInProject(project, name);
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.features.change(tx, actor, name, (doc) => ({
        ...doc,
        lifecycle: complete(doc.lifecycle, body.status, body.statusValue, this.deps.clock()),
      }));
      await tx.record({
        type: "feature-completed",
        actor,
        project,
        featureName: name,
        data: { status: body.status, statusValue: body.statusValue ?? null },
      });
    });
  }

  /** A no-op (no event) when the flag is not completed. */
  async uncomplete(project: string, name: string, actor: Actor): Promise<void> {
    const feature = await this.deps.features.getInProject(project, name);
    if (currentStage(feature.lifecycle) !== "completed") return;
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.features.change(tx, actor, name, (doc) => ({ ...doc, lifecycle: uncomplete(doc.lifecycle) }));
      await tx.record({ type: "feature-uncompleted", actor, project, featureName: name });
    });
  }

  /** Archived flags keep their lifecycle readable. */
  private async findInProject(project: string, name: string): Promise<FeatureDocument> {
    try {
      return await this.deps.features.getInProject(project, name);
    } catch (err) {
      const archived = await this.deps.features.find(name);
      if (archived?.archived && archived.project === project) return archived;
      throw err;
    }
  }
}
