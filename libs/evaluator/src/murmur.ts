/**
 * MurmurHash3 x86 32-bit over a string's char codes (low byte of each, as murmurhash3js and the
 * Unleash SDKs hash), split so a key's fixed start is mixed in once: every rollout and variant
 * hashes `groupId:` + a sticky value, and the `groupId:` part is the same for every request.
 */
const c1 = 0xcc9e2d51;
const c2 = 0x1b873593;

export interface HashPrefix {
  /** The hash state after the prefix's whole 4-byte blocks. */
  readonly state: number;
  /** The prefix's last 0–3 characters, not yet a whole block. */
  readonly rest: string;
  /** How many characters the state covers. */
  readonly mixed: number;
}

function block(text: string, at: number): number {
  return (
    (text.charCodeAt(at) & 0xff) |
    ((text.charCodeAt(at + 1) & 0xff) << 8) |
    ((text.charCodeAt(at + 2) & 0xff) << 16) |
    ((text.charCodeAt(at + 3) & 0xff) << 24)
  );
}

function scramble(k: number): number {
  k = Math.imul(k, c1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, c2);
}

function mix(h: number, k: number): number {
  h ^= scramble(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function hashPrefix(prefix: string, seed: number): HashPrefix {
  const whole = prefix.length - (prefix.length % 4);
  let h = seed | 0;
  for (let i = 0; i < whole; i += 4) h = mix(h, block(prefix, i));
  return { state: h, rest: prefix.slice(whole), mixed: whole };
}

/** The unsigned hash of the prefix followed by `suffix`: murmurhash3js's `x86.hash32(prefix + suffix, seed)`. */
export function hashWithPrefix(prefix: HashPrefix, suffix: string): number {
  const key = prefix.rest + suffix;
  const tail = key.length % 4;
  const whole = key.length - tail;
  let h = prefix.state;
  for (let i = 0; i < whole; i += 4) h = mix(h, block(key, i));
  if (tail > 0) {
    let k = key.charCodeAt(whole) & 0xff;
    if (tail > 1) k ^= (key.charCodeAt(whole + 1) & 0xff) << 8;
    if (tail > 2) k ^= (key.charCodeAt(whole + 2) & 0xff) << 16;
    h ^= scramble(k);
  }
  h ^= prefix.mixed + key.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
