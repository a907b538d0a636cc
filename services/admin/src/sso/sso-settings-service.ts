import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { rootRoleById } from "../roles/root-roles.js";
import type { SsoPolicy } from "./sso-sign-in.js";
import type { SsoSettingsStore } from "./sso-settings-store.js";

/**
 * Stores a single sign-on provider's settings, read at each sign-in step, so a change applies at
 * once on every admin instance. Each change is a `setting-created`/`setting-updated` event whose
 * data names the settings but holds none of their secrets (`describe`).
 */
export class SsoSettingsService<T extends SsoPolicy & { enabled?: boolean }> {
  constructor(
    private readonly deps: {
      settings: SsoSettingsStore<T>;
      unitOfWork: UnitOfWork;
      /** The settings as an event shows them: without secrets. */
      describe: (settings: T) => Record<string, unknown>;
      /** The settings to store from what was sent and what is stored; throws on bad input. */
      prepare?: (input: T, before: T | null) => T;
    },
  ) {}

  async get(): Promise<T> {
    return (await this.deps.settings.get()) ?? ({ enabled: false } as T);
  }

  /** Replaces the settings; `defaultRootRoleId` wins over `defaultRootRole` and sets its name. */
  async update(input: T, actor: Actor): Promise<T> {
    const withRole: T =
      input.defaultRootRoleId !== undefined ? { ...input, defaultRootRole: rootRoleById(input.defaultRootRoleId).name } : input;
    const { describe, prepare } = this.deps;
    return this.deps.unitOfWork.run(async (tx) => {
      const before = await this.deps.settings.get(tx.session);
      const settings = prepare ? prepare(withRole, before) : withRole;
      await this.deps.settings.put(settings, tx.session);
      await tx.record({
        type: before ? "setting-updated" : "setting-created",
        actor,
        data: describe(settings),
        preData: before ? describe(before) : null,
      });
      return settings;
    });
  }
}
