import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

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

export interface UserStore {
  nextId(): Promise<number>;
  list(): Promise<UserDocument[]>;
  get(id: number, session?: StoreSession): Promise<UserDocument | null>;
  getMany(ids: number[]): Promise<UserDocument[]>;
  /** By username or email, case-insensitively for email as Unleash does. */
  findByLogin(login: string, session?: StoreSession): Promise<UserDocument | null>;
  insert(user: UserDocument, session?: StoreSession): Promise<void>;
  update(id: number, fields: Partial<Omit<UserDocument, "_id">>, session?: StoreSession): Promise<boolean>;
  delete(id: number, session?: StoreSession): Promise<boolean>;
  count(): Promise<number>;
}

export async function createUserStore(engine: StoreEngine): Promise<UserStore> {
  const users: Collection<UserDocument> = engine.collection("users");
  await users.createIndex({ username: 1 });
  await users.createIndex({ email: 1 });
  return {
    nextId: () => engine.nextSequence("users"),
    list: () => users.find({}, { sort: { _id: 1 } }),
    get: (id, session) => users.findOne({ _id: id }, { session }),
    getMany: (ids) => users.find({ _id: { $in: ids } }, { sort: { _id: 1 } }),
    findByLogin: (login, session) => users.findOne({ $or: [{ username: login }, { email: login.toLowerCase() }] }, { session }),
    async insert(user, session) {
      await users.insertOne(user, { session });
    },
    async update(id, fields, session) {
      return (await users.updateOne({ _id: id }, { $set: fields }, { session })).matchedCount === 1;
    },
    async delete(id, session) {
      return (await users.deleteOne({ _id: id }, { session })).deletedCount === 1;
    },
    count: () => users.countDocuments({}),
  };
}
