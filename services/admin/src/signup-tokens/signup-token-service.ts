import { randomBytes } from "node:crypto";
import { NotFoundError, ValidationError } from "@vexil/errors";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { rootRoleById, viewerRoleId } from "../roles/root-roles.js";
import type { UserService, UserView } from "../users/user-service.js";
import type { SignupTokenDocument, SignupTokenStore } from "./signup-token-store.js";

export interface SignupTokenView {
  secret: string;
  url: string;
  name: string;
  enabled: boolean;
  expiresAt: string;
  createdAt: string;
  createdBy: string | null;
  users: UserView[];
  role: { id: number; type: string; name: string; description: string };
}

export interface NewSignupUser {
  name?: string;
  email: string;
  username?: string;
  password: string;
}

export class SignupTokenService {
  constructor(
    private readonly deps: {
      tokens: SignupTokenStore;
      users: UserService;
      unitOfWork: UnitOfWork;
      clock: () => Date;
      /** Prefix of the invite URL; a path relative to the server when not configured. */
      publicUrl?: string;
    },
  ) {}

  async list(): Promise<SignupTokenView[]> {
    return Promise.all((await this.deps.tokens.list()).map((t) => this.toView(t)));
  }

  async get(secret: string): Promise<SignupTokenView> {
    return this.toView(await this.require(secret));
  }

  async create({ name, expiresAt, roleId }: { name: string; expiresAt: string; roleId?: number }, actor: Actor) {
    const role = rootRoleById(roleId ?? viewerRoleId);
    const expires = new Date(expiresAt);
    if (expires <= this.deps.clock()) throw new ValidationError("expiresAt must be in the future");
    const doc: SignupTokenDocument = {
      _id: randomBytes(16).toString("hex"),
      name,
      enabled: true,
      expiresAt: expires,
      createdAt: this.deps.clock(),
      createdBy: actor.name,
      roleId: role.id,
      userIds: [],
    };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.tokens.insert(doc, tx.session);
      await tx.record({ type: "public-signup-token-created", actor, data: describe(doc) });
    });
    return this.toView(doc);
  }

  /** PUT /api/admin/invite-link/tokens/:token: either field may be given. */
  async update(secret: string, changes: { expiresAt?: string; enabled?: boolean }, actor: Actor): Promise<SignupTokenView> {
    const after = await this.deps.unitOfWork.run(async (tx) => {
      const before = await this.require(secret, tx.session);
      const fields = {
        ...(changes.expiresAt !== undefined ? { expiresAt: new Date(changes.expiresAt) } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      };
      await this.deps.tokens.update(secret, fields, tx.session);
      const updated = { ...before, ...fields };
      await tx.record({ type: "public-signup-token-updated", actor, data: describe(updated), preData: describe(before) });
      return updated;
    });
    return this.toView(after);
  }

  /** 400 unless the token exists, is enabled and has not expired. */
  async assertUsable(secret: string): Promise<SignupTokenDocument> {
    const token = await this.deps.tokens.get(secret);
    if (!token || !this.isEnabled(token)) throw new ValidationError("The invite link is not valid or has expired");
    return token;
  }

  /** Creates a user with the token's role and lists them on the token, in one write. */
  async signup(secret: string, input: NewSignupUser): Promise<UserView> {
    const token = await this.assertUsable(secret);
    const actor = { name: input.username ?? input.email, userId: -1 };
    return this.deps.unitOfWork.run(async (tx) => {
      const user = await this.deps.users.create({ ...input, rootRole: token.roleId }, actor, tx);
      await this.deps.tokens.addUser(secret, user.id, tx.session);
      await tx.record({
        type: "public-signup-token-user-added",
        actor: { name: actor.name, userId: user.id },
        data: { ...describe(token), userId: user.id },
      });
      return user;
    });
  }

  private isEnabled(token: SignupTokenDocument): boolean {
    return token.enabled && token.expiresAt > this.deps.clock();
  }

  private async require(secret: string, session?: Parameters<SignupTokenStore["get"]>[1]): Promise<SignupTokenDocument> {
    const token = await this.deps.tokens.get(secret, session);
    if (!token) throw new NotFoundError("Could not find a public signup token with that secret");
    return token;
  }

  private async toView(token: SignupTokenDocument): Promise<SignupTokenView> {
    const role = rootRoleById(token.roleId);
    return {
      secret: token._id,
      url: `${this.deps.publicUrl ?? ""}/new-user?invite=${token._id}`,
      name: token.name,
      enabled: this.isEnabled(token),
      expiresAt: token.expiresAt.toISOString(),
      createdAt: token.createdAt.toISOString(),
      createdBy: token.createdBy,
      users: await this.deps.users.listByIds(token.userIds),
      role: { id: role.id, type: role.type, name: role.name, description: role.description },
    };
  }
}

/** Events name the token, never its secret (the secret is the invite). */
function describe(token: SignupTokenDocument) {
  return {
    name: token.name,
    enabled: token.enabled,
    expiresAt: token.expiresAt.toISOString(),
    roleId: token.roleId,
  };
}
