import { MongoServerError, type Db, type MongoClient } from "mongodb";
import { NotReady } from "@vexil/errors";

/** The oldest MongoDB the engine runs on: 5.0 stores keys starting with `$` or holding `.` (strategy parameters, signal payloads). */
export const minimumVersion = [5, 0] as const;
const minimum = minimumVersion.join(".");

/** What `hello` says about the deployment. */
export interface Topology {
  /** The replica set's name, when the server is a member of an initiated one. */
  setName?: string;
  /** Started with `--replSet` but `rs.initiate()` not run yet. */
  isreplicaset?: boolean;
  /** `isdbgrid` on a mongos (a sharded cluster: transactions work there too). */
  msg?: string;
  isWritablePrimary?: boolean;
}

/**
 * Why the server cannot run the engine, or undefined when it can: transactions need a replica set
 * (or a sharded cluster); a member of one that is not initiated yet, or not primary yet, is not ready.
 */
export function topologyProblem(hello: Topology): { problem: string; lasting: boolean } | undefined {
  if (hello.msg === "isdbgrid") return undefined;
  if (hello.setName) {
    return hello.isWritablePrimary === false
      ? { problem: `the replica set ${hello.setName} has no primary yet (an election is under way)`, lasting: false }
      : undefined;
  }
  if (hello.isreplicaset) {
    return {
      problem: "the server was started as a replica-set member but the replica set is not initiated yet: run rs.initiate() once",
      lasting: false,
    };
  }
  return {
    problem:
      "it is a standalone server, and every admin write is a transaction, which needs a replica set: start mongod with --replSet rs0 and run rs.initiate() once (a single-node replica set is enough)",
    lasting: true,
  };
}

/** Whether `version` ("4.4.29", "7.0.2") is at least the minimum. */
export function versionAtLeastMinimum(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  return major > minimumVersion[0] || (major === minimumVersion[0] && minor >= minimumVersion[1]);
}

/**
 * Checks, once at open, that the server can run the engine, with a message that says what to do
 * when it cannot: a replica set (NotReady while it is being initiated or elects a primary, so the
 * start waits for it), MongoDB 5.0 or newer, and a feature compatibility version of 5.0 or more
 * (5.0 binaries keep 4.4's rules on `$` and `.` in keys until it is raised). The feature
 * compatibility version needs the `getParameter` privilege; a user without it gets the same
 * answer from a write of such a key in a transaction that is then aborted.
 */
export async function checkServer(client: MongoClient, db: Db): Promise<void> {
  const admin = client.db("admin");
  const hello = (await admin.command({ hello: 1 })) as Topology;
  const topology = topologyProblem(hello);
  if (topology) {
    const message = `MongoDB cannot be used yet: ${topology.problem}`;
    throw topology.lasting ? new Error(message) : new NotReady(message);
  }
  const { version } = (await admin.command({ buildInfo: 1 })) as { version: string };
  if (!versionAtLeastMinimum(version)) {
    throw new Error(`MongoDB ${version} is too old: Vexil needs MongoDB ${minimum} or newer (upgrade the server)`);
  }
  const fcv = await featureCompatibilityVersion(client);
  if (fcv !== undefined && !versionAtLeastMinimum(fcv)) {
    throw new Error(
      `MongoDB ${version} runs with feature compatibility version ${fcv}: Vexil needs ${minimum} or more. ${raiseIt(version)}`,
    );
  }
  if (fcv === undefined) await probeDottedKeys(client, db, version);
}

/** How to raise the feature compatibility version to the binary's (7.0 and later want `confirm: true`). */
const raiseIt = (version: string) =>
  `Raise it: db.adminCommand({ setFeatureCompatibilityVersion: "${version.split(".").slice(0, 2).join(".")}"${versionAtLeast7(version) ? ", confirm: true" : ""} })`;
const versionAtLeast7 = (version: string) => Number.parseInt(version, 10) >= 7;

/** The feature compatibility version, or undefined when this user may not read it. */
async function featureCompatibilityVersion(client: MongoClient): Promise<string | undefined> {
  try {
    const answer = (await client.db("admin").command({ getParameter: 1, featureCompatibilityVersion: 1 })) as {
      featureCompatibilityVersion?: { version?: string };
    };
    return answer.featureCompatibilityVersion?.version;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 13) return undefined; // Unauthorized
    throw err;
  }
}

/** Writes a key with `$` and `.` in a transaction it then aborts: refused when the FCV is below 5.0. */
async function probeDottedKeys(client: MongoClient, db: Db, version: string): Promise<void> {
  const session = client.startSession();
  try {
    session.startTransaction({ writeConcern: { w: "majority" }, readPreference: "primary" });
    await db.collection("counters").insertOne({ _id: `probe-${Date.now()}`, probe: { $key: 1, "dotted.key": 1 } } as never, { session });
  } catch (err) {
    if (err instanceof MongoServerError && [2, 52, 57].includes(err.code as number)) {
      throw new Error(
        `MongoDB ${version} refuses keys starting with $ or holding a dot (${err.message}): its feature compatibility version is below ${minimum}. ${raiseIt(version)}`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    if (session.inTransaction()) await session.abortTransaction();
    await session.endSession();
  }
}
