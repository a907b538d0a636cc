import type { ClientSession, MongoClient } from "mongodb";

/** The port's session for this engine: the driver's session, wrapped so it stays opaque to callers. */
export class MongoSession {
  /** Set by a failed call in a transaction: the server aborted it, only ending it is left. */
  failure: unknown = undefined;
  constructor(
    readonly owner: MongoClient,
    readonly clientSession: ClientSession,
    /** A transaction's session, or a snapshot session (`withSnapshot`), which only reads. */
    readonly kind: "transaction" | "snapshot",
  ) {}
}
