import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { ServiceUnavailable } from "@vexil/errors";

/** OWASP's scrypt parameters (N=2^17, r=8, p=1); each hash records its own so they can change later. */
const params = { N: 2 ** 17, r: 8, p: 1 } as const;
const keyLength = 64;

/**
 * scrypt runs in libuv's thread pool (4 threads by default), the pool the journal's fsync and every
 * file read wait in. One derivation at a time keeps three threads free for them however many
 * sign-ins arrive at once (and caps scrypt's memory at one 128 MB block); the rest wait their turn.
 */
const maxConcurrentDerivations = 1;
/** Past this many waiting, a hash is refused with 503 rather than queued for minutes. */
const maxWaitingDerivations = 64;

let running = 0;
const waiting: Array<() => void> = [];

async function inPool<T>(work: () => Promise<T>): Promise<T> {
  if (running >= maxConcurrentDerivations) {
    if (waiting.length >= maxWaitingDerivations) {
      throw new ServiceUnavailable("Too many password checks in progress; try again shortly", 1);
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line, so `running` never drops while others wait.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return inPool(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password, salt, keyLength, { ...options, maxmem: 256 * options.N! * options.r! }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

function encode(options: ScryptOptions, salt: Buffer, key: Buffer): string {
  return ["scrypt", options.N, options.r, options.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** `scrypt$N$r$p$salt$hash` (base64): never the password, never reversible. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encode(params, salt, await derive(password, salt, params));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await derive(password, Buffer.from(salt, "base64"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash with today's parameters that no password matches (its key is all zeros, which scrypt never yields in practice). */
const unmatchableHash = encode(params, randomBytes(16), Buffer.alloc(keyLength));

/**
 * The same work as checking a real password, for a sign-in whose user does not exist or has no
 * password: the answer takes as long as a wrong password's, so timing does not tell which names exist.
 */
export async function spendPasswordCheck(password: string): Promise<void> {
  await verifyPassword(password, unmatchableHash);
}
