import { randomUUID } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, describe, it } from "vitest";
import { describeCollectionContract } from "./collection.contract.js";
import { describeConcurrencyContract } from "./concurrency.contract.js";
import { describeDocumentContract } from "./documents.contract.js";
import { createMongoEngine } from "./index.js";

// Needs a replica set (a single node one is enough) for the transactions: see `npm run test:mongo`.
const url = process.env.MONGODB_URL;
const database = `vexil_store_test_${randomUUID().slice(0, 8)}`;

if (url) {
  const open = () => createMongoEngine({ url, database, clientOptions: { serverSelectionTimeoutMS: 5000 } });
  describeCollectionContract("mongo", open);
  describeDocumentContract("mongo", open);
  describeConcurrencyContract("mongo", open, { serialTransactions: false });
  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      await client.db(database).dropDatabase();
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
