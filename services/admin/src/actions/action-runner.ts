import type { Principal } from "@vexil/auth";
import type { ActionSetEvent, ActionSetState, SignalReceived } from "@vexil/contracts";
import { NoAccessError, NotFoundError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { AccessService, Actor } from "../access/access-service.js";
import { permissions } from "../access/permissions.js";
import type { ActionDocument, ActionSetDocument, ActionSetEventStore, ActionSetStore } from "./action-set-store.js";
import { toActionSet } from "./action-service.js";
import { compilePayloadFilter } from "./payload-match.js";

/** The one path flags change through, for people and actions alike (FeatureService). */
export interface FeatureEnvironmentSwitch {
  setEnvironmentEnabled(project: string, name: string, environment: string, enabled: boolean, actor: Actor): Promise<unknown>;
}

/** Who an action set runs as: its service account, as a principal the access rules judge. */
export interface ActionActors {
  resolve(actorId: number): Promise<{ actor: Actor; principal: Principal } | null>;
}

export interface ActionRunnerDeps {
  actionSets: ActionSetStore;
  actionSetEvents: ActionSetEventStore;
  features: FeatureEnvironmentSwitch;
  actors: ActionActors;
  access: AccessService;
  clock: () => Date;
  logger: Logger;
}

type ActionOutcome = ActionSetEvent["actionSet"]["actions"][number];

/**
 * Reacts to a received signal: every enabled action set listening to its endpoint whose filter
 * matches claims the signal (once, across all admin instances), then runs its actions in order as
 * its service account. The first failing action stops the rest; the log says what happened.
 */
export class ActionRunner {
  constructor(private readonly deps: ActionRunnerDeps) {}

  async handle(signal: SignalReceived): Promise<void> {
    const now = () => this.deps.clock().getTime();
    const received = {
      id: signal.signalId,
      source: "signal-endpoint" as const,
      sourceId: signal.endpointId,
      createdAt: signal.createdAt,
      tokenName: signal.source,
      payload: signal.payload,
    };
    for (const set of await this.deps.actionSets.listeningTo(signal.endpointId)) {
      if (!compilePayloadFilter(set.match.payload)(signal.payload, now)) continue;
      const claimed = await this.deps.actionSetEvents.claim({
        actionSetId: set._id,
        signalId: signal.signalId,
        createdAt: this.deps.clock(),
        state: "started",
        signal: received,
        actionSet: { ...toActionSet(set), actions: toActionSet(set).actions.map((a) => ({ ...a, state: "not started" as const })) },
      });
      if (!claimed) continue;
      const { state, actions } = await this.run(set);
      await this.deps.actionSetEvents.finish(claimed._id, state, { ...claimed.actionSet, actions });
      this.deps.logger.info({ actionSetId: set._id, signalId: signal.signalId, state }, "action set ran");
    }
  }

  private async run(set: ActionSetDocument): Promise<{ state: ActionSetState; actions: ActionOutcome[] }> {
    const ordered = [...toActionSet(set).actions].sort((a, b) => a.sortOrder - b.sortOrder);
    const outcomes: ActionOutcome[] = ordered.map((a) => ({ ...a, state: "not started" }));
    const runAs = await this.deps.actors.resolve(set.actorId);
    for (const [i, action] of ordered.entries()) {
      try {
        if (!runAs) throw new NotFoundError(`Service account ${set.actorId} no longer exists`);
        await this.execute(action, runAs);
        outcomes[i] = { ...outcomes[i], state: "success" };
      } catch (err) {
        const details = err instanceof Error ? err.message : String(err);
        outcomes[i] = { ...outcomes[i], state: "failed", details };
        return { state: "failed", actions: outcomes };
      }
    }
    return { state: "success", actions: outcomes };
  }

  private async execute(action: Pick<ActionDocument, "action" | "executionParams">, { actor, principal }: { actor: Actor; principal: Principal }): Promise<void> {
    const { project, featureName, environment } = action.executionParams;
    const permission = permissions.updateFeatureEnvironment;
    if (!this.deps.access.can(principal, permission, { project, environment })) throw new NoAccessError(permission, environment);
    const enabled = action.action === "TOGGLE_FEATURE_ON";
    await this.deps.features.setEnvironmentEnabled(project, featureName, environment, enabled, actor);
  }
}
