import type { StoreFormat } from "@vexil/store";
import type { ApiTokenDocument } from "../api-tokens/api-token-store.js";
import { loginsOf, type StoredUser } from "../users/user-store.js";

/**
 * The formats of admin's store (see `migrateStore`). Format 1 is the layout written since token
 * uses have been kept by digest and logins under one unique index; format 0 is whatever a store
 * written before formats were recorded holds, which may predate both.
 */
export const adminStoreFormat: StoreFormat = {
  service: "admin",
  steps: [
    {
      description: "users get their logins (username and email) for the unique index; token uses move out of the token documents",
      async run(engine, log) {
        const users = engine.collection<StoredUser>("users");
        let withLogins = 0;
        for (const user of await users.find({ logins: { $exists: false } })) {
          const logins = loginsOf(user);
          if (logins.length === 0) continue;
          withLogins += (await users.updateOne({ _id: user._id, logins: { $exists: false } }, { $set: { logins } })).modifiedCount;
        }

        // A use recorded on the token itself rewrote its secret into the journal on every use; uses
        // now live in api_tokens_seen by digest. The latest of the two is kept, so a re-run is harmless.
        const tokens = engine.collection<ApiTokenDocument>("api_tokens");
        const seen = engine.collection<{ _id: string; seenAt: Date }>("api_tokens_seen");
        let usesMoved = 0;
        for (const token of await tokens.find({ seenAt: { $ne: null } }, { projection: { digest: 1, seenAt: 1 } })) {
          await seen.updateOne({ _id: token.digest }, { $max: { seenAt: token.seenAt! } }, { upsert: true });
          usesMoved += (await tokens.updateOne({ _id: token._id, seenAt: token.seenAt }, { $set: { seenAt: null } })).modifiedCount;
        }
        log.info({ store: "admin", usersGivenLogins: withLogins, tokenUsesMoved: usesMoved }, "users and token uses brought to format 1");
      },
    },
  ],
};
