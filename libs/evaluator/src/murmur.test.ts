import murmurhash3 from "murmurhash3js";
import { describe, expect, it } from "vitest";
import { hashPrefix, hashWithPrefix } from "./murmur.js";

const alphabet = ["a", "Z", "0", ":", "-", " ", "é", "ß", "中", "😀", "\u0100", "\uffff"];

function randomText(random: () => number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}

describe("murmur hash with a prefix", () => {
  it("equals murmurhash3js over the whole key, for every prefix and suffix length and both seeds", () => {
    let state = 7;
    const random = () => ((state = (state * 1664525 + 1013904223) % 4294967296), state / 4294967296);
    for (const seed of [0, 86028157]) {
      for (let prefixLength = 0; prefixLength < 10; prefixLength++) {
        for (let suffixLength = 0; suffixLength < 14; suffixLength++) {
          const prefix = randomText(random, prefixLength);
          const suffix = randomText(random, suffixLength);
          if (prefix + suffix === "") continue;
          expect(hashWithPrefix(hashPrefix(prefix, seed), suffix)).toBe(murmurhash3.x86.hash32(prefix + suffix, seed));
        }
      }
    }
  });
});
