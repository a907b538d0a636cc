import { tokenDigest, type RootRole, type SessionUser } from "@vexil/auth";
import { AuthenticationRequired, NameExistsError, NotFoundError, PasswordMismatch, ValidationError } from "@vexil/errors";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import { resolveRootRole, rootRoleById } from "../roles/root-roles.js";
import { avatarUrl } from "./avatar.js";
import { hashPassword, spendPasswordCheck, verifyPassword } from "./password.js";
import type { PersonalAccessTokenStore } from "./personal-access-token-store.js";
import type { UserDocument, UserStore } from "./user-store.js";

export interface NewUser {
  name?: string;
  email?: string;
  username?: string;
  rootRole: number | RootRole;
  password?: string;
}

export interface UserChanges {
  name?: string;
  email?: string;
  rootRole?: number | RootRole;
}

/** A user as the API shows it: never the password hash. */
export interface UserView {
  id: number;
  name: string | null;
  username: string | null;
  email?: string;
  imageUrl: string;
  rootRole: number;
  loginAttempts: number;
  seenAt: string | null;
  createdAt: string;
  accountType: "User";
  isAPI: false;
}

export function toUserView(doc: UserDocument): UserView {
  return {
    id: doc._id,
    name: doc.name,
    username: doc.username,
    ...(doc.email ? { email: doc.email } : {}),
    imageUrl: avatarUrl(doc.email ?? doc.username ?? String(doc._id)),
    rootRole: doc.rootRole,
    loginAttempts: doc.loginAttempts,
    seenAt: doc.seenAt?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
    accountType: "User",
    isAPI: false,
  };
}

export function toSessionUser(doc: UserDocument): SessionUser {
  return { id: doc._id, name: doc.name, username: doc.username, email: doc.email, rootRole: rootRoleById(doc.rootRole).name };
}

/** The sign-ins a user change ends (a role change, a removal, a new password). */
export interface UserSessions {
  deleteForUser(userId: number, session?: StoreSession): Promise<void>;
  deleteForUserExcept(userId: number, keepDigest: string, session?: StoreSession): Promise<void>;
}

/** The groups a deleted user leaves (the group store). */
export interface UserGroupMemberships {
  removeUserEverywhere(userId: number, session?: StoreSession): Promise<Array<{ _id: number; name: string }>>;
}

const invalidLogin = "The combination of password and username you provided is invalid";

export class UserService {
  constructor(
    private readonly deps: {
      users: UserStore;
      sessions: UserSessions;
      personalAccessTokens: PersonalAccessTokenStore;
      groups: UserGroupMemberships;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  async list(): Promise<UserView[]> {
    return (await this.deps.users.list()).map(toUserView);
  }

  async listByIds(ids: number[]): Promise<UserView[]> {
    return ids.length === 0 ? [] : (await this.deps.users.getMany(ids)).map(toUserView);
  }

  async get(id: number): Promise<UserView> {
    return toUserView(await this.require(id));
  }

  /** Whether the user exists (a failing store still throws). */
  async exists(id: number): Promise<boolean> {
    return (await this.deps.users.get(id)) !== null;
  }

  /** The signed-in form of a stored user, or undefined once the user is gone. */
  async sessionUser(id: number): Promise<SessionUser | undefined> {
    const doc = await this.deps.users.get(id);
    return doc ? toSessionUser(doc) : undefined;
  }

  /** Creates a user, in the caller's transaction when given (signup records its own event with it). */
  async create(input: NewUser, actor: Actor, tx?: Transaction): Promise<UserView> {
    const role = resolveRootRole(input.rootRole);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const write = async (t: Transaction) => {
      await this.assertUnique({ username: input.username, email: input.email }, undefined, t);
      const doc: UserDocument = {
        _id: await this.deps.users.nextId(),
        name: input.name ?? null,
        username: input.username ?? null,
        email: input.email?.toLowerCase() ?? null,
        rootRole: role.id,
        passwordHash,
        loginAttempts: 0,
        createdAt: this.deps.clock(),
        seenAt: null,
      };
      await this.deps.users.insert(doc, t.session);
      const view = toUserView(doc);
      await t.record({ type: "user-created", actor, data: view });
      return view;
    };
    return tx ? write(tx) : this.deps.unitOfWork.run(write);
  }

  async update(id: number, changes: UserChanges, actor: Actor): Promise<UserView> {
    const role = changes.rootRole !== undefined ? resolveRootRole(changes.rootRole) : undefined;
    return this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(id, tx);
      const email = changes.email?.toLowerCase();
      if (email !== undefined) await this.assertUnique({ email }, id, tx);
      const fields: Partial<UserDocument> = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(role ? { rootRole: role.id } : {}),
      };
      await this.deps.users.update(id, fields, tx.session);
      const after = { ...before, ...fields };
      // A demoted user must not keep acting with the old role through an open session.
      if (role && role.id !== before.rootRole) await this.deps.sessions.deleteForUser(id, tx.session);
      await tx.record({ type: "user-updated", actor, data: toUserView(after), preData: toUserView(before) });
      return toUserView(after);
    });
  }

  async delete(id: number, actor: Actor): Promise<void> {
    if (id === actor.userId) throw new ValidationError("You cannot delete yourself");
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(id, tx);
      await this.deps.users.delete(id, tx.session);
      await this.deps.sessions.deleteForUser(id, tx.session);
      await this.deps.personalAccessTokens.deleteForUser(id, tx.session);
      // Group syncing only ever sees people who sign in: a deleted user leaves every group here, said in the event log.
      for (const group of await this.deps.groups.removeUserEverywhere(id, tx.session))
        await tx.record({
          type: "group-user-removed",
          actor,
          data: { groupId: group._id, groupName: group.name, userId: id, source: "user-deleted" },
        });
      await tx.record({ type: "user-deleted", actor, preData: toUserView(before) });
    });
  }

  async changePassword(id: number, password: string, actor: Actor): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(id, tx);
      await this.deps.users.update(id, { passwordHash, loginAttempts: 0 }, tx.session);
      // Other sessions end: whoever knew the old password is signed out.
      await this.deps.sessions.deleteForUser(id, tx.session);
      await tx.record({ type: "user-updated", actor, data: { id, passwordChanged: true }, preData: { id: before._id } });
    });
  }

  /**
   * People change their own password, as in Unleash 8: the current one must match, the new one must
   * differ from it, and every other session of the user ends while `keepSessionId` (the caller's) stays.
   */
  async changeOwnPassword(
    id: number,
    { oldPassword, password }: { oldPassword: string; password: string },
    actor: Actor,
    keepSessionId: string | undefined,
  ): Promise<void> {
    const current = await this.require(id);
    if (!current.passwordHash || !(await verifyPassword(oldPassword, current.passwordHash))) {
      throw new PasswordMismatch(
        "The old password you provided is invalid. If you have forgotten your password, get in touch with your instance administrator.",
      );
    }
    if (await verifyPassword(password, current.passwordHash)) {
      throw new ValidationError("You've previously used this password. Please use a new password.", [
        { path: "body.password", message: "You've previously used this password. Please use a new password." },
      ]);
    }
    const passwordHash = await hashPassword(password);
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.users.update(id, { passwordHash, loginAttempts: 0 }, tx.session);
      if (keepSessionId) await this.deps.sessions.deleteForUserExcept(id, tokenDigest(keepSessionId), tx.session);
      else await this.deps.sessions.deleteForUser(id, tx.session);
      await tx.record({ type: "user-updated", actor, data: { id, passwordChanged: true }, preData: { id } });
    });
  }

  /** Checks a password sign-in; 401 without saying which half was wrong. */
  async verifyLogin(login: string, password: string): Promise<UserDocument> {
    const user = await this.deps.users.findByLogin(login);
    if (!user?.passwordHash) {
      await spendPasswordCheck(password);
      throw new AuthenticationRequired(invalidLogin);
    }
    if (!(await verifyPassword(password, user.passwordHash))) {
      await this.deps.users.update(user._id, { loginAttempts: user.loginAttempts + 1 });
      throw new AuthenticationRequired(invalidLogin);
    }
    const seenAt = this.deps.clock();
    await this.deps.users.update(user._id, { loginAttempts: 0, seenAt });
    return { ...user, loginAttempts: 0, seenAt };
  }

  /** The user with this email (case-insensitively) or username, if any: single sign-on finds people by email. */
  async findByLogin(login: string, tx?: Transaction): Promise<UserView | undefined> {
    const doc = await this.deps.users.findByLogin(login, tx?.session);
    return doc ? toUserView(doc) : undefined;
  }

  /** Marks a sign-in that did not use a password (single sign-on). */
  async markSeen(id: number, tx: Transaction): Promise<void> {
    await this.deps.users.update(id, { loginAttempts: 0, seenAt: this.deps.clock() }, tx.session);
  }

  /** The id of this user when it signs in with this password (the default-password warning), else undefined. */
  async idIfPassword(login: string, password: string): Promise<number | undefined> {
    const user = await this.deps.users.findByLogin(login);
    return user?.passwordHash && (await verifyPassword(password, user.passwordHash)) ? user._id : undefined;
  }

  /** The configured first admin, created only when there are no users at all (the first start). */
  async ensureInitialAdmin({ username, password }: { username: string; password: string }, actor: Actor): Promise<boolean> {
    if ((await this.deps.users.count()) > 0) return false;
    const passwordHash = await hashPassword(password);
    return this.deps.unitOfWork.run(async (tx) => {
      // Two instances starting at once on an empty database: the store lets one of them through.
      if (!(await this.deps.users.claimFirstUser(tx.session))) return false;
      const doc: UserDocument = {
        _id: await this.deps.users.nextId(),
        name: null,
        username,
        email: null,
        rootRole: 1,
        passwordHash,
        loginAttempts: 0,
        createdAt: this.deps.clock(),
        seenAt: null,
      };
      await this.deps.users.insert(doc, tx.session);
      await tx.record({ type: "user-created", actor, data: toUserView(doc) });
      return true;
    });
  }

  private async require(id: number, tx?: Transaction): Promise<UserDocument> {
    const doc = await this.deps.users.get(id, tx?.session);
    if (!doc) throw new NotFoundError(`Could not find user with id ${id}`);
    return doc;
  }

  private async assertUnique(
    { username, email }: { username?: string; email?: string },
    exceptId: number | undefined,
    tx: Transaction,
  ): Promise<void> {
    for (const login of [username, email?.toLowerCase()]) {
      if (!login) continue;
      const existing = await this.deps.users.findByLogin(login, tx.session);
      if (existing && existing._id !== exceptId) throw new NameExistsError(`A user with ${login} already exists`);
    }
  }
}
