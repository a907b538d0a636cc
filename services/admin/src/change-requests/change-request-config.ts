/**
 * Which project environments require change requests, and the guard that enforces it: registered as
 * a FeatureService change guard, it refuses direct changes there and lets a request's apply through.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ChangeRequestConfigInput, ChangeRequestEnvironmentConfig, StrategyFields } from "@vexil/contracts";
import { NotFoundError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { environmentOf, type FeatureDocument } from "../features/feature-model.js";
import { canonicalJson, ChangeRequestForbidden } from "./change-request-rules.js";
import type { ChangeRequestStore } from "./change-request-store.js";

/** Unleash's default number of approvals. */
export const defaultRequiredApprovals = 1;

/** What change requests read about a project (ProjectService). */
export interface ProjectEnvironments {
  get(project: string): Promise<{ _id: string }>;
  environmentViews(project: string): Promise<{ name: string; type: string }[]>;
  defaultStrategy(project: string, environment: string): Promise<StrategyFields & { name: string }>;
}

/** Whether the project environment requires change requests (read by projects, which the config itself reads). */
export async function changeRequestsEnabled(
  store: Pick<ChangeRequestStore, "setting">,
  project: string,
  environment: string,
): Promise<boolean> {
  return (await store.setting(project, environment))?.enabled ?? false;
}

export class ChangeRequestConfig {
  /** Set while a change request applies: its changes pass the environment guard. */
  private readonly applying = new AsyncLocalStorage<number>();

  constructor(
    private readonly deps: {
      store: Pick<ChangeRequestStore, "settings" | "setting" | "putSetting">;
      projects: Pick<ProjectEnvironments, "get" | "environmentViews">;
      unitOfWork: UnitOfWork;
    },
  ) {}

  async getConfig(project: string): Promise<ChangeRequestEnvironmentConfig[]> {
    await this.deps.projects.get(project);
    const [views, settings] = await Promise.all([this.deps.projects.environmentViews(project), this.deps.store.settings(project)]);
    const byEnvironment = new Map(settings.map((s) => [s.environment, s]));
    return views.map((view) => ({
      environment: view.name,
      type: view.type,
      changeRequestEnabled: byEnvironment.get(view.name)?.enabled ?? false,
      requiredApprovals: byEnvironment.get(view.name)?.requiredApprovals ?? defaultRequiredApprovals,
    }));
  }

  async putConfig(project: string, environment: string, input: ChangeRequestConfigInput, actor: Actor): Promise<void> {
    await this.assertProjectEnvironment(project, environment);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.store.setting(project, environment, tx.session);
      const after = {
        _id: `${project}:${environment}`,
        project,
        environment,
        enabled: input.changeRequestsEnabled,
        requiredApprovals: input.requiredApprovals ?? before?.requiredApprovals ?? defaultRequiredApprovals,
      };
      await this.deps.store.putSetting(after, tx.session);
      await tx.record({
        type: "change-request-configuration-updated",
        actor,
        project,
        environment,
        data: { changeRequestsEnabled: after.enabled, requiredApprovals: after.requiredApprovals },
        preData: before ? { changeRequestsEnabled: before.enabled, requiredApprovals: before.requiredApprovals } : null,
      });
    });
  }

  async isEnabled(project: string, environment: string): Promise<boolean> {
    return changeRequestsEnabled(this.deps.store, project, environment);
  }

  /** Runs a request's apply: the changes it makes pass the guard. */
  whileApplying<T>(requestId: number, apply: () => Promise<T>): Promise<T> {
    return this.applying.run(requestId, apply);
  }

  /**
   * FeatureService change guard: a direct change to an environment that requires change requests
   * (its on/off, strategies or variants, or archiving a flag enabled there) is refused, whoever
   * makes it (people, and signal actions, which flip flags through the same FeatureService path).
   * Dependencies and segments belong to no environment, so direct changes to them pass (as in
   * Unleash); they can still be proposed in a change request. An archived flag is served nowhere,
   * so it counts as off: reviving it (which turns it off everywhere) changes nothing SDKs see.
   */
  readonly guard = async (before: FeatureDocument, after: FeatureDocument): Promise<void> => {
    if (this.applying.getStore() !== undefined) return;
    for (const environment of new Set([...Object.keys(before.environments), ...Object.keys(after.environments)])) {
      // Most environments need no change request: asked first, the flag's content is compared only where one does.
      if (!(await this.isEnabled(after.project, environment))) continue;
      const was = environmentOf(before, environment);
      const is = environmentOf(after, environment);
      const content = (env: typeof was, archived: boolean) =>
        canonicalJson({ enabled: !archived && (env?.enabled ?? false), strategies: env?.strategies ?? [], variants: env?.variants ?? [] });
      const archivedWhileOn = !before.archived && after.archived && was?.enabled === true;
      if (content(was, before.archived) === content(is, after.archived) && !archivedWhileOn) continue;
      throw new ChangeRequestForbidden(
        "SKIP_CHANGE_REQUEST",
        `Change requests are enabled for environment ${environment} in project ${after.project}: propose this change in a change request ` +
          `(POST /api/admin/projects/${after.project}/environments/${environment}/change-requests) instead of changing the flag directly`,
        environment,
      );
    }
  };

  async assertProjectEnvironment(project: string, environment: string): Promise<void> {
    await this.deps.projects.get(project);
    const views = await this.deps.projects.environmentViews(project);
    if (!views.some((v) => v.name === environment))
      throw new NotFoundError(`Environment ${environment} is not enabled in project ${project}`);
  }
}
