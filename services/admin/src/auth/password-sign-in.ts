import express, { type Router } from "express";
import { adminContract, type PasswordAuthSettings } from "@vexil/contracts";
import { OperationDeniedError, ValidationError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import type { Collection, StoreEngine } from "@vexil/store";
import type { AccessService } from "../access/access-service.js";
import type { Actor } from "../access/actor.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { UserView } from "../users/user-service.js";

interface PasswordAuthDocument extends PasswordAuthSettings {
  _id: "simple";
}

/**
 * Whether people may sign in with a password (Unleash's "simple" auth settings). It can be turned
 * off once SAML or OIDC sign-in is enabled, and is off only while one still is: turning single
 * sign-on off later brings password sign-in back rather than locking everyone out. While it is
 * off, the built-in admin may still sign in with a password when the server runs with
 * `PASSWORD_SIGN_IN_BREAK_GLASS=true`; each such sign-in is logged at warn and is an event.
 */
export class PasswordSignIn {
  private readonly settings: Collection<PasswordAuthDocument>;

  constructor(
    private readonly deps: {
      engine: StoreEngine;
      unitOfWork: UnitOfWork;
      /** Whether SAML or OIDC sign-in is enabled now. */
      ssoEnabled: () => Promise<boolean>;
      /** PASSWORD_SIGN_IN_BREAK_GLASS. */
      breakGlass: boolean;
      /** The built-in admin's username (INIT_ADMIN_USERNAME). */
      builtInAdmin: string;
      logger: Logger;
    },
  ) {
    this.settings = deps.engine.collection("auth_settings");
  }

  async get(): Promise<PasswordAuthSettings> {
    return { disabled: (await this.settings.findOne({ _id: "simple" }))?.disabled ?? false };
  }

  async update({ disabled }: PasswordAuthSettings, actor: Actor): Promise<PasswordAuthSettings> {
    if (disabled && !(await this.deps.ssoEnabled()))
      throw new ValidationError(
        "Password sign-in can only be turned off while SAML or OpenID Connect sign-in is enabled: enable one first",
      );
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.settings.findOne({ _id: "simple" }, { session: tx.session });
      await this.settings.replaceOne({ _id: "simple" }, { _id: "simple", disabled }, { upsert: true, session: tx.session });
      await tx.record({
        type: before ? "setting-updated" : "setting-created",
        actor,
        data: { id: "simple", disabled },
        preData: before ? { id: "simple", disabled: before.disabled } : null,
      });
    });
    return { disabled };
  }

  /** What the sign-in page offers: off only while single sign-on is enabled too. */
  async isOn(): Promise<boolean> {
    return !(await this.get()).disabled || !(await this.deps.ssoEnabled());
  }

  /**
   * Before a password is checked: throws while password sign-in is off, except for the built-in
   * admin with the break-glass on. Decided on the name alone, so the answer tells nothing of passwords.
   */
  async assertAllowed(login: string): Promise<"password" | "break-glass"> {
    if (await this.isOn()) return "password";
    if (this.deps.breakGlass && login.trim().toLowerCase() === this.deps.builtInAdmin.toLowerCase()) return "break-glass";
    throw new OperationDeniedError("Password sign-in is turned off: sign in with single sign-on (SAML or OpenID Connect)");
  }

  /** The built-in admin signed in through the break-glass: loud in the log and in the event log. */
  async recordBreakGlass(user: UserView): Promise<void> {
    this.deps.logger.warn(
      { userId: user.id, username: user.username },
      "the built-in admin signed in with a password while password sign-in is off (PASSWORD_SIGN_IN_BREAK_GLASS)",
    );
    await this.deps.unitOfWork.run((tx) =>
      tx.record({
        type: "password-sign-in-break-glass",
        actor: { name: user.username ?? String(user.id), userId: user.id },
        data: { userId: user.id, username: user.username },
      }),
    );
  }
}

export function passwordSettingsRoutes({ passwordSignIn, access }: { passwordSignIn: PasswordSignIn; access: AccessService }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.passwordAuth,
    { access },
    {
      getSettings: async () => ({ status: 200, body: await passwordSignIn.get() }),
      updateSettings: async ({ body, actor }) => ({ status: 200, body: await passwordSignIn.update(body, actor) }),
    },
  );
  return router;
}
