import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSecretBox, type SecretBox } from "@vexil/auth";
import { createEmbeddedEngine, type StoreEngine } from "@vexil/store";

/** A secret box under a fresh random key, as a test's admin seals with. */
export const testSecretBox = (): SecretBox => createSecretBox({ current: randomBytes(32) });

/** An embedded store in a temporary directory, with what its files hold on disk. */
export async function embeddedStoreOnDisk() {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-stored-secrets-"));
  let engine = await createEmbeddedEngine({ dir });
  return {
    get engine(): StoreEngine {
      return engine;
    },
    /** Everything the engine keeps on disk, as one text. */
    async onDisk() {
      return (await Promise.all((await readdir(dir)).map((file) => readFile(path.join(dir, file), "utf8")))).join("\n");
    },
    /** Closes and opens the store again, as a restart does (which folds the journal into a new snapshot). */
    async reopen() {
      await engine.close();
      engine = await createEmbeddedEngine({ dir });
    },
    async drop() {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
