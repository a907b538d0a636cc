import { SecretUnreadableError } from "@vexil/auth";

/**
 * Brings a store's secrets up to date at start: `migrate` seals what an older version kept in
 * clear and seals again what a previous key sealed, and returns how many documents it rewrote. A
 * secret no configured key opens stops the start with what to do, instead of failing later on
 * the first request that needs it.
 */
export async function sealStoredSecrets(what: string, migrate: () => Promise<number>): Promise<number> {
  try {
    return await migrate();
  } catch (err) {
    if (!(err instanceof SecretUnreadableError)) throw err;
    throw new SecretUnreadableError(
      `Cannot read the stored ${what}: ${err.message}. Start with the key they were sealed with ` +
        "(SECRETS_ENCRYPTION_KEY, or DATA_DIR/secrets.key when none is set), listing it in SECRETS_PREVIOUS_KEYS to move to a new one",
      { cause: err },
    );
  }
}
