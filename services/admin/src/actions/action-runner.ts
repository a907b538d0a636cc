import { randomUUID } from "node:crypto";
import type { Principal } from "@vexil/auth";
import type { ActionName, ActionSetEvent, SignalReceived } from "@vexil/contracts";
import { NoAccessError, NotFoundError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { AccessService } from "../access/access-service.js";
import type { Actor } from "../access/actor.js";
import { permissions } from "../access/permissions.js";
import type { ActionDocument, ActionSetEventDocument, ActionSetEventStore, ActionSetStore } from "./action-set-store.js";
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
  /** How long a run may go without recording progress before another instance may take it over. */
  leaseMs?: number;
}

type ActionOutcome = ActionSetEvent["actionSet"]["actions"][number];
type RunAs = { actor: Actor; principal: Principal };

export const defaultActionLeaseMs = 60_000;

/**
 * What to do with an action whose outcome is unknown because its runner stopped while it ran (the
 * log says "started"): "re-run" when running it again cannot do more than running it once, "fail"
 * otherwise. Toggles set the environment to an absolute state, and a toggle that finds the flag
 * already in that state changes nothing and records no event, so they are re-run: leaving a kill
 * switch unflipped after its alert is the worse outcome. Every new kind of action must choose here.
 */
const onUnknownOutcome: Record<ActionName, "re-run" | "fail"> = {
  TOGGLE_FEATURE_ON: "re-run",
  TOGGLE_FEATURE_OFF: "re-run",
};

const rerunNote = "interrupted while running; run again on recovery, as toggling a flag is idempotent";
const notRetriedNote = "interrupted while running; not retried to avoid running it twice";

/**
 * Reacts to a received signal: every enabled action set listening to its endpoint whose filter
 * matches claims the signal (once, across all admin instances), then runs its actions in sortOrder
 * as its service account. The first failing action stops the rest; the log says what happened.
 *
 * The log entry records each action's state as it goes ("started" before it runs, then its
 * outcome) under a lease that every write extends. If this instance stops mid-run, another (or
 * this one after a restart) takes the entry over once the lease expires (`recoverInterrupted`)
 * and finishes it: actions already done are kept, actions not started are run, and an action left
 * "started" follows `onUnknownOutcome`. So no action runs twice for one signal except a toggle
 * whose first run may or may not have happened.
 */
export class ActionRunner {
  /** Identifies this instance as the owner of the log entries it runs. */
  private readonly owner = randomUUID();
  private readonly leaseMs: number;

  constructor(private readonly deps: ActionRunnerDeps) {
    this.leaseMs = deps.leaseMs ?? defaultActionLeaseMs;
  }

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
      const snapshot = toActionSet(set);
      const claimed = await this.deps.actionSetEvents.claim({
        actionSetId: set._id,
        signalId: signal.signalId,
        createdAt: this.deps.clock(),
        state: "started",
        signal: received,
        actionSet: {
          ...snapshot,
          // Stored in the order they run, so the log reads top to bottom.
          actions: [...snapshot.actions].sort((a, b) => a.sortOrder - b.sortOrder).map((a) => ({ ...a, state: "not started" as const })),
        },
        lease: { owner: this.owner, expiresAt: this.leaseEnd() },
      });
      if (claimed) await this.complete(claimed);
    }
  }

  /**
   * Takes over the log entries whose runner stopped before finishing (lease expired) and finishes
   * them. Safe to call from every instance at once: each entry goes to exactly one.
   */
  async recoverInterrupted(): Promise<number> {
    let recovered = 0;
    for (const entry of await this.deps.actionSetEvents.expired(this.deps.clock())) {
      const lease = { owner: this.owner, expiresAt: this.leaseEnd() };
      if (!(await this.deps.actionSetEvents.takeOver(entry, lease, this.deps.clock()))) continue;
      const context = { actionSetId: entry.actionSetId, signalId: entry.signalId, previousOwner: entry.lease.owner };
      this.deps.logger.warn(context, "taking over an interrupted action set run");
      try {
        await this.complete({ ...entry, lease }, { recovering: true });
        recovered++;
      } catch (err) {
        // Left "started" under this instance's lease: it is taken over again once that runs out.
        this.deps.logger.error({ ...context, err }, "could not finish an interrupted action set run");
      }
    }
    return recovered;
  }

  /** Runs the actions of an entry this instance owns that are not done yet, recording each step. */
  private async complete(entry: ActionSetEventDocument, { recovering = false } = {}): Promise<void> {
    const actions: ActionOutcome[] = entry.actionSet.actions.map((a) => ({ ...a }));
    const { actionSetId, signalId } = entry;
    const save = async (state?: "success" | "failed") => {
      const kept = await this.deps.actionSetEvents.progress(entry._id, this.owner, {
        actionSet: { ...entry.actionSet, actions },
        leaseExpiresAt: this.leaseEnd(),
        state,
      });
      if (!kept) this.deps.logger.warn({ actionSetId, signalId }, "another instance took over this action set run; stopping");
      else if (state) this.deps.logger.info({ actionSetId, signalId, state }, "action set ran");
      return kept;
    };
    const fail = async (i: number, details: string) => {
      actions[i] = { ...actions[i], state: "failed", details };
      await save("failed");
    };

    const notToFinish = recovering ? await this.whyNotToFinish(entry) : null;
    let runAs: RunAs | null | undefined;
    for (const [i, action] of actions.entries()) {
      if (action.state === "success") continue;
      if (action.state === "failed") {
        await save("failed");
        return;
      }
      if (notToFinish) return fail(i, notToFinish);
      let note: string | undefined;
      if (action.state === "started") {
        if (onUnknownOutcome[action.action] === "fail") return fail(i, notRetriedNote);
        note = rerunNote;
      } else {
        actions[i] = { ...action, state: "started" };
        if (!(await save())) return;
      }
      try {
        runAs ??= await this.deps.actors.resolve(entry.actionSet.actorId);
        if (!runAs) throw new NotFoundError(`Service account ${entry.actionSet.actorId} no longer exists`);
        await this.execute(action, runAs);
      } catch (err) {
        return fail(i, err instanceof Error ? err.message : String(err));
      }
      actions[i] = { ...actions[i], state: "success", ...(note ? { details: note } : {}) };
      if (!(await save())) return;
    }
    await save("success");
  }

  /**
   * A run taken over later must not act for an action set that was deleted or disabled since:
   * returns why the remaining actions will not run, or null when they may.
   */
  private async whyNotToFinish(entry: ActionSetEventDocument): Promise<string | null> {
    const current = await this.deps.actionSets.get(entry.actionSet.project, entry.actionSetId);
    if (!current) return "interrupted; the action set was deleted before the run could be finished, so it was abandoned here";
    if (!current.enabled) return "interrupted; the action set was disabled before the run could be finished, so it was abandoned here";
    return null;
  }

  private leaseEnd(): Date {
    return new Date(this.deps.clock().getTime() + this.leaseMs);
  }

  private async execute(action: Pick<ActionDocument, "action" | "executionParams">, { actor, principal }: RunAs): Promise<void> {
    const { project, featureName, environment } = action.executionParams;
    const permission = permissions.updateFeatureEnvironment;
    if (!this.deps.access.can(principal, permission, { project, environment })) throw new NoAccessError(permission, environment);
    const enabled = action.action === "TOGGLE_FEATURE_ON";
    await this.deps.features.setEnvironmentEnabled(project, featureName, environment, enabled, actor);
  }
}
