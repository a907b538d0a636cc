import { randomUUID } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, describe, it } from "vitest";
import { describeBackupContract } from "./backup.contract.js";
import { describeCollectionContract } from "./collection.contract.js";
import { describeConcurrencyContract } from "./concurrency.contract.js";
import { describeDocumentContract } from "./documents.contract.js";
import { describeLimitsContract } from "./limits.contract.js";
import { describeRefusalContract } from "./refusals.contract.js";
import { describeFormatContract } from "./format.contract.js";
import { describeTransactionContract } from "./transactions.contract.js";
import { createMongoEngine } from "./index.js";

// Needs a replica set (a single node one is enough) for the transactions: see `npm run test:mongo`.
const url = process.env.MONGODB_URL;
const database = `vexil_store_test_${randomUUID().slice(0, 8)}`;

if (url) {
  const open = () => createMongoEngine({ url, database, clientOptions: { serverSelectionTimeoutMS: 5000 } });
  describeCollectionContract("mongo", open);
  describeTransactionContract("mongo", open);
  describeDocumentContract("mongo", open);
  describeConcurrencyContract("mongo", open, { serialTransactions: false });
  describeRefusalContract("mongo", open);
  describeLimitsContract("mongo", open);
  // A connection string asking for what would break the engine (secondary reads, unacknowledged
  // writes, no retries): the engine pins what it relies on, so keys, transactions and sequences hold.
  const careless = new URL(url);
  for (const [option, value] of Object.entries({
    readPreference: "secondaryPreferred",
    w: "0",
    journal: "false",
    readConcernLevel: "available",
    retryWrites: "false",
    retryReads: "false",
  })) {
    careless.searchParams.set(option, value);
  }
  describeTransactionContract("mongo, URL asking for secondary reads and w=0", () =>
    createMongoEngine({ url: careless.toString(), database, clientOptions: { serverSelectionTimeoutMS: 5000 } }),
  );
  // Backups and format markers are per database: each store of these contracts gets one of its own.
  const backupDatabases: string[] = [];
  describeBackupContract("mongo", () => {
    backupDatabases.push(`${database}_backup_${backupDatabases.length}`);
    return createMongoEngine({ url, database: backupDatabases.at(-1)!, clientOptions: { serverSelectionTimeoutMS: 5000 } });
  });
  describeFormatContract("mongo", () => {
    backupDatabases.push(`${database}_format_${backupDatabases.length}`);
    return createMongoEngine({ url, database: backupDatabases.at(-1)!, clientOptions: { serverSelectionTimeoutMS: 5000 } });
  });
  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      for (const name of [database, ...backupDatabases]) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
} else {
  console.log("skipped: MONGODB_URL not set (see libs/store/README.md, `npm run test:mongo`)");
  describe.skip("Store contract: mongo (skipped: MONGODB_URL not set)", () => {
    it("runs against MongoDB", () => undefined);
  });
}
