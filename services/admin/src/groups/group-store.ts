import { NameExistsError } from "@vexil/errors";
import { DuplicateKeyError, type Collection, type StoreEngine, type StoreSession } from "@vexil/store";

export interface GroupMember {
  userId: number;
  joinedAt: Date;
  createdBy: string | null;
}

export interface GroupDocument {
  _id: number;
  name: string;
  description: string | null;
  /** Identity provider group names whose members belong here. */
  mappingsSSO: string[];
  /** Root role id the members hold at least; null for none. */
  rootRole: number | null;
  members: GroupMember[];
  createdAt: Date;
  createdBy: string | null;
}

export interface GroupStore {
  nextId(): Promise<number>;
  list(): Promise<GroupDocument[]>;
  get(id: number, session?: StoreSession): Promise<GroupDocument | null>;
  /** The groups the user is a member of. */
  ofUser(userId: number, session?: StoreSession): Promise<GroupDocument[]>;
  /** The groups that map any of the identity provider's group names. */
  mapping(names: string[], session?: StoreSession): Promise<GroupDocument[]>;
  /** NameExistsError when another group has the name. */
  put(group: GroupDocument, session?: StoreSession): Promise<void>;
  delete(id: number, session?: StoreSession): Promise<boolean>;
  /** Drops the user from every group (the user is deleted); answers the groups the user left. */
  removeUserEverywhere(userId: number, session?: StoreSession): Promise<Array<Pick<GroupDocument, "_id" | "name">>>;
}

export async function createGroupStore(engine: StoreEngine): Promise<GroupStore> {
  const groups: Collection<GroupDocument> = engine.collection("groups");
  await groups.createIndex({ name: 1 }, { unique: true, name: "group_name_unique" });
  await groups.createIndex({ "members.userId": 1 });
  await groups.createIndex({ mappingsSSO: 1 });
  const nameTaken = (err: unknown, name: string): unknown =>
    err instanceof DuplicateKeyError && err.index === "group_name_unique"
      ? new NameExistsError(`A group named ${name} already exists`)
      : err;
  return {
    nextId: () => engine.nextSequence("groups"),
    list: () => groups.find({}, { sort: { _id: 1 } }),
    get: (id, session) => groups.findOne({ _id: id }, { session }),
    ofUser: (userId, session) => groups.find({ "members.userId": userId }, { sort: { _id: 1 }, session }),
    mapping: (names, session) =>
      names.length === 0 ? Promise.resolve([]) : groups.find({ mappingsSSO: { $in: names } }, { sort: { _id: 1 }, session }),
    async put(group, session) {
      await groups.replaceOne({ _id: group._id }, group, { upsert: true, session }).catch((err: unknown) => {
        throw nameTaken(err, group.name);
      });
    },
    delete: async (id, session) => (await groups.deleteOne({ _id: id }, { session })).deletedCount > 0,
    async removeUserEverywhere(userId, session) {
      const left = await groups.find({ "members.userId": userId }, { sort: { _id: 1 }, session });
      if (left.length > 0) await groups.updateMany({ "members.userId": userId }, { $pull: { members: { userId } } }, { session });
      return left.map(({ _id, name }) => ({ _id, name }));
    },
  };
}
