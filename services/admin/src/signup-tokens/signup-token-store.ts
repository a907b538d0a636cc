import type { Collection, StoreEngine, StoreSession } from "@vexil/store";

export interface SignupTokenDocument {
  /** The secret, as in the invite URL (Unleash shows it back to admins). */
  _id: string;
  name: string;
  enabled: boolean;
  expiresAt: Date;
  createdAt: Date;
  createdBy: string | null;
  roleId: number;
  /** Users who signed up with it, in order. */
  userIds: number[];
}

export interface SignupTokenStore {
  list(): Promise<SignupTokenDocument[]>;
  get(secret: string, session?: StoreSession): Promise<SignupTokenDocument | null>;
  insert(token: SignupTokenDocument, session?: StoreSession): Promise<void>;
  update(secret: string, fields: Partial<Pick<SignupTokenDocument, "enabled" | "expiresAt">>, session?: StoreSession): Promise<void>;
  addUser(secret: string, userId: number, session?: StoreSession): Promise<void>;
}

export function createSignupTokenStore(engine: StoreEngine): SignupTokenStore {
  const tokens: Collection<SignupTokenDocument> = engine.collection("public_signup_tokens");
  return {
    list: () => tokens.find({}, { sort: { createdAt: 1 } }),
    get: (secret, session) => tokens.findOne({ _id: secret }, { session }),
    async insert(token, session) {
      await tokens.insertOne(token, { session });
    },
    async update(secret, fields, session) {
      await tokens.updateOne({ _id: secret }, { $set: fields }, { session });
    },
    async addUser(secret, userId, session) {
      await tokens.updateOne({ _id: secret }, { $push: { userIds: userId } }, { session });
    },
  };
}
