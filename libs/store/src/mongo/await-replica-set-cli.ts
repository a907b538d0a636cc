import { awaitReplicaSet, helloAt } from "./await-replica-set.js";

/**
 * `npm run test:mongo` runs this first: it waits for the replica set MONGODB_URL names to be
 * initiated and have a primary, and stops at once, saying why, on a standalone server (on which
 * nearly every test would fail with a transaction error). Without MONGODB_URL the tests skip.
 */
const url = process.env.MONGODB_URL;
if (!url) {
  process.stdout.write("MONGODB_URL is not set: the MongoDB tests skip. Point it at a replica set (libs/store/README.md, Tests).\n");
  process.exit(0);
}
try {
  await awaitReplicaSet({ hello: helloAt(url), log: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write("MongoDB is a replica set with a primary: running the MongoDB tests\n");
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
