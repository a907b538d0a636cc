import { NameExistsError } from "@vexil/errors";
import { DuplicateKeyError, type Collection, type StoreEngine, type StoreSession } from "@vexil/store";

export interface UserDocument {
  _id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  /** Root role id: 1 Admin, 2 Editor, 3 Viewer. */
  rootRole: number;
  /** scrypt hash; null for users who have not set a password yet. */
  passwordHash: string | null;
  loginAttempts: number;
  createdAt: Date;
  seenAt: Date | null;
}

/**
 * As stored: with `logins`, the username and the email a user signs in with, under one unique
 * (multikey) index. No two users share a login, whether username or email, even when two requests
 * create them at once: a check read before the write would let both through on MongoDB.
 */
export type StoredUser = UserDocument & { logins?: string[] };

export interface UserStore {
  nextId(): Promise<number>;
  list(): Promise<UserDocument[]>;
  get(id: number, session?: StoreSession): Promise<UserDocument | null>;
  getMany(ids: number[]): Promise<UserDocument[]>;
  /** By username or email, case-insensitively for email as Unleash does. */
  findByLogin(login: string, session?: StoreSession): Promise<UserDocument | null>;
  /** NameExistsError when another user has its username or email. */
  insert(user: UserDocument, session?: StoreSession): Promise<void>;
  /** NameExistsError when the new email is another user's username or email. */
  update(id: number, fields: Partial<Omit<UserDocument, "_id">>, session?: StoreSession): Promise<boolean>;
  delete(id: number, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
  /**
   * Whether the caller's transaction may create the first user: true when there is no user. It
   * also writes a guard document, so two admin instances starting at once on an empty database
   * conflict on it and the one that runs again sees the other's user.
   */
  claimFirstUser(session: StoreSession): Promise<boolean>;
}

export const loginsOf = (user: Pick<UserDocument, "username" | "email">): string[] => [
  ...new Set([user.username, user.email].filter((login): login is string => !!login)),
];

export async function createUserStore(engine: StoreEngine): Promise<UserStore> {
  const users: Collection<StoredUser> = engine.collection("users");
  const guards = engine.collection<{ _id: string; attempts: number }>("user_guards");
  await users.createIndex({ username: 1 });
  await users.createIndex({ email: 1 });
  // Every user with a username or email has `logins` since store format 1 (see store-format/).
  await users.createIndex({ logins: 1 }, { unique: true, name: "logins_unique", partialFilterExpression: { logins: { $exists: true } } });

  const withLogins = (user: UserDocument): StoredUser => {
    const logins = loginsOf(user);
    const { logins: _stale, ...rest } = user as StoredUser;
    return logins.length > 0 ? { ...rest, logins } : rest;
  };
  const loginTaken = (err: unknown): unknown =>
    err instanceof DuplicateKeyError && err.index === "logins_unique"
      ? new NameExistsError(`A user with ${String(err.keyValue?.logins ?? "that username or email")} already exists`)
      : err;
  const withoutLogins = ({ logins: _logins, ...user }: StoredUser): UserDocument => user;
  const one = (user: StoredUser | null) => (user ? withoutLogins(user) : null);

  return {
    nextId: () => engine.nextSequence("users"),
    list: async () => (await users.find({}, { sort: { _id: 1 } })).map(withoutLogins),
    get: async (id, session) => one(await users.findOne({ _id: id }, { session })),
    getMany: async (ids) => (await users.find({ _id: { $in: ids } }, { sort: { _id: 1 } })).map(withoutLogins),
    findByLogin: async (login, session) =>
      one(await users.findOne({ $or: [{ username: login }, { email: login.toLowerCase() }] }, { session })),
    async insert(user, session) {
      await users.insertOne(withLogins(user), { session }).catch((err: unknown) => {
        throw loginTaken(err);
      });
    },
    async update(id, fields, session) {
      if (!("username" in fields) && !("email" in fields)) {
        return (await users.updateOne({ _id: id }, { $set: fields }, { session })).matchedCount === 1;
      }
      const current = await users.findOne({ _id: id }, { session });
      if (!current) return false;
      const next = withLogins({ ...withoutLogins(current), ...fields });
      const update = next.logins ? { $set: { ...fields, logins: next.logins } } : { $set: fields, $unset: { logins: "" as const } };
      await users.updateOne({ _id: id }, update, { session }).catch((err: unknown) => {
        throw loginTaken(err);
      });
      return true;
    },
    async delete(id, session) {
      return (await users.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
    count: () => users.countDocuments({}),
    async claimFirstUser(session) {
      await guards.updateOne({ _id: "first-user" }, { $inc: { attempts: 1 } }, { upsert: true, session });
      return (await users.countDocuments({}, { session })) === 0;
    },
  };
}
