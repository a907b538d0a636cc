import { randomBytes } from "node:crypto";
import { tokenDigest } from "@vexil/auth";
import { AuthenticationRequired, NotFoundError } from "@vexil/errors";
import type { EventType } from "@vexil/contracts";
import type { StoreSession } from "@vexil/store";
import type { Actor } from "../access/actor.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import type { PersonalAccessTokenDocument, PersonalAccessTokenStore } from "./personal-access-token-store.js";

/** Unleash's personal access token shape: `user:<random>`. */
export const personalAccessTokenPrefix = "user:";

export interface PersonalAccessTokenView {
  id: number;
  description: string;
  expiresAt: string;
  createdAt: string;
  seenAt: string | null;
  userId: number;
}

function toView(doc: PersonalAccessTokenDocument): PersonalAccessTokenView {
  return {
    id: doc._id,
    description: doc.description,
    expiresAt: doc.expiresAt.toISOString(),
    createdAt: doc.createdAt.toISOString(),
    seenAt: doc.seenAt?.toISOString() ?? null,
    userId: doc.userId,
  };
}

/**
 * Tokens that act as an account: people's personal access tokens, and (a second instance over the
 * same store, recording Unleash's service-account events) service accounts' tokens. Both kinds of
 * account take their ids from the users sequence, so an owner id names one account.
 */
export class PersonalAccessTokenService {
  constructor(
    private readonly deps: {
      tokens: PersonalAccessTokenStore;
      unitOfWork: UnitOfWork;
      clock: () => Date;
      events?: { created: EventType; deleted: EventType };
    },
  ) {}

  private get events() {
    return this.deps.events ?? { created: "pat-created", deleted: "pat-deleted" };
  }

  async list(userId: number): Promise<PersonalAccessTokenView[]> {
    return (await this.deps.tokens.listForUser(userId)).map(toView);
  }

  /** The only moment the secret exists outside the caller's hands: it is returned, never stored. */
  async create(
    userId: number,
    { description, expiresAt }: { description: string; expiresAt: string },
    actor: Actor,
  ): Promise<PersonalAccessTokenView & { secret: string }> {
    const secret = `${personalAccessTokenPrefix}${randomBytes(28).toString("hex")}`;
    const doc: PersonalAccessTokenDocument = {
      _id: await this.deps.tokens.nextId(),
      digest: tokenDigest(secret),
      userId,
      description,
      expiresAt: new Date(expiresAt),
      createdAt: this.deps.clock(),
      seenAt: null,
    };
    await this.deps.unitOfWork.run(async (tx) => {
      await this.deps.tokens.insert(doc, tx.session);
      await tx.record({ type: this.events.created, actor, data: toView(doc) });
    });
    return { ...toView(doc), secret };
  }

  async delete(userId: number, id: number, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const doc = await this.deps.tokens.getForUser(userId, id, tx.session);
      if (!doc) throw new NotFoundError(`Could not find personal access token with id ${id}`);
      await this.deps.tokens.delete(id, tx.session);
      await tx.record({ type: this.events.deleted, actor, preData: toView(doc) });
    });
  }

  /** Ends every token of an account that is going away, in its transaction. */
  async deleteAllFor(userId: number, session: StoreSession): Promise<void> {
    await this.deps.tokens.deleteForUser(userId, session);
  }

  /** The user a presented secret acts as; undefined when it is not a known token, 401 once expired. */
  async userIdFor(secret: string): Promise<number | undefined> {
    if (!secret.startsWith(personalAccessTokenPrefix)) return undefined;
    const doc = await this.deps.tokens.findByDigest(tokenDigest(secret));
    if (!doc) return undefined;
    const now = this.deps.clock();
    if (doc.expiresAt <= now) throw new AuthenticationRequired("The personal access token has expired");
    await this.deps.tokens.markSeen(doc._id, now);
    return doc.userId;
  }
}
