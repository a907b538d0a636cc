import type { Principal, RootRole, SessionUser } from "@vexil/auth";
import {
  serviceAccountRootRoles,
  type CreatePersonalAccessToken,
  type CreateServiceAccount,
  type PersonalAccessToken,
  type ServiceAccount,
  type UpdateServiceAccount,
} from "@vexil/contracts";
import { NameExistsError, NotFoundError, ValidationError } from "@vexil/errors";
import { DuplicateKeyError, type StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { ServiceAccountDocument, ServiceAccountStore } from "./service-account-store.js";

type RootRoleRef = number | RootRole;

function resolveRootRole(ref: RootRoleRef) {
  const role = serviceAccountRootRoles.find((r) => (typeof ref === "number" ? r.id === ref : r.name === ref));
  if (!role)
    throw new ValidationError(`Could not find root role with id ${ref}`, [{ path: "body.rootRole", message: "Unknown root role" }]);
  return role;
}

function toServiceAccount(doc: ServiceAccountDocument): ServiceAccount {
  return {
    id: doc._id,
    name: doc.name,
    username: doc.username,
    imageUrl: "",
    rootRole: doc.rootRole,
    accountType: "Service Account",
    isAPI: false,
    createdAt: doc.createdAt.toISOString(),
    seenAt: doc.seenAt ? doc.seenAt.toISOString() : null,
  };
}

/** A service account as a signed-in user with its root role. */
function userOf(account: ServiceAccountDocument): SessionUser {
  return { id: account._id, name: account.name, username: account.username, email: null, rootRole: resolveRootRole(account.rootRole).name };
}

function eventData(doc: ServiceAccountDocument) {
  return { id: doc._id, username: doc.username, name: doc.name, rootRole: doc.rootRole };
}

/** The tokens that act as an account (the users slice keeps them, for people and service accounts alike). */
export interface AccountTokens {
  list(ownerId: number): Promise<PersonalAccessToken[]>;
  create(ownerId: number, input: CreatePersonalAccessToken, actor: Actor): Promise<PersonalAccessToken & { secret: string }>;
  delete(ownerId: number, id: number, actor: Actor): Promise<void>;
  deleteAllFor(ownerId: number, session: StoreSession): Promise<void>;
}

export interface ServiceAccountServiceDeps {
  accounts: ServiceAccountStore;
  tokens: AccountTokens;
  unitOfWork: UnitOfWork;
  clock: () => Date;
  /** Whether something (an action set) still runs as this account. */
  isInUse: (id: number) => Promise<boolean>;
}

export class ServiceAccountService {
  constructor(private readonly deps: ServiceAccountServiceDeps) {}

  readonly rootRoles = serviceAccountRootRoles.map((r) => ({ ...r }));

  async list(): Promise<ServiceAccount[]> {
    return (await this.deps.accounts.list()).map(toServiceAccount);
  }

  async get(id: number): Promise<ServiceAccountDocument | null> {
    return this.deps.accounts.get(id);
  }

  async create(input: CreateServiceAccount, actor: Actor): Promise<ServiceAccount> {
    const role = resolveRootRole(input.rootRole);
    const doc: ServiceAccountDocument = {
      _id: await this.deps.accounts.nextId(),
      username: input.username,
      name: input.name ?? null,
      rootRole: role.id,
      createdAt: this.deps.clock(),
      seenAt: null,
    };
    await this.deps.unitOfWork
      .run(async (tx) => {
        await this.deps.accounts.insert(doc, tx.session);
        await tx.record({ type: "service-account-created", actor, data: eventData(doc) });
      })
      .catch((err) => {
        if (err instanceof DuplicateKeyError) throw new NameExistsError(`A service account named ${input.username} already exists`);
        throw err;
      });
    return toServiceAccount(doc);
  }

  async update(id: number, input: UpdateServiceAccount, actor: Actor): Promise<ServiceAccount> {
    const rootRole = input.rootRole === undefined ? undefined : resolveRootRole(input.rootRole).id;
    const after = await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.mustGet(id, tx.session);
      const updated = { ...before, ...(input.name !== undefined ? { name: input.name } : {}), ...(rootRole ? { rootRole } : {}) };
      await this.deps.accounts.update(id, { name: updated.name, rootRole: updated.rootRole }, tx.session);
      await tx.record({ type: "service-account-updated", actor, data: eventData(updated), preData: eventData(before) });
      return updated;
    });
    return toServiceAccount(after);
  }

  async delete(id: number, actor: Actor): Promise<void> {
    if (await this.deps.isInUse(id)) {
      throw new NameExistsError(`Service account ${id} is the actor of an action set; change or delete the action set first`);
    }
    await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.mustGet(id, tx.session);
      await this.deps.accounts.delete(id, tx.session);
      // Its tokens end with it.
      await this.deps.tokens.deleteAllFor(id, tx.session);
      await tx.record({ type: "service-account-deleted", actor, preData: eventData(before) });
    });
  }

  async listTokens(id: number): Promise<PersonalAccessToken[]> {
    await this.mustGet(id);
    return this.deps.tokens.list(id);
  }

  async createToken(id: number, input: CreatePersonalAccessToken, actor: Actor): Promise<PersonalAccessToken & { secret: string }> {
    await this.mustGet(id);
    return this.deps.tokens.create(id, input, actor);
  }

  async deleteToken(id: number, tokenId: number, actor: Actor): Promise<void> {
    await this.mustGet(id);
    await this.deps.tokens.delete(id, tokenId, actor);
  }

  /** Who a token of this account acts as (marking the account seen); undefined once the account is gone. */
  async tokenUser(id: number): Promise<SessionUser | undefined> {
    const account = await this.deps.accounts.get(id);
    if (!account) return undefined;
    await this.markSeen(id);
    return userOf(account);
  }

  /**
   * The principal an action runs as: a user with the account's root role, so the same access
   * rules decide what it may change as for anyone else.
   */
  principalOf(account: ServiceAccountDocument): Principal {
    return { kind: "user", via: "personal-access-token", user: userOf(account) };
  }

  async markSeen(id: number): Promise<void> {
    await this.deps.accounts.update(id, { seenAt: this.deps.clock() });
  }

  private async mustGet(id: number, session?: Parameters<ServiceAccountStore["get"]>[1]): Promise<ServiceAccountDocument> {
    const account = await this.deps.accounts.get(id, session);
    if (!account) throw new NotFoundError(`Could not find service account with id ${id}`);
    return account;
  }
}
