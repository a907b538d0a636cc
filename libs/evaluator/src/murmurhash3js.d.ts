// murmurhash3js ships no types; only the hash the Unleash SDKs use is declared.
declare module 'murmurhash3js' {
  const murmurhash3: {
    x86: { hash32(key: string, seed?: number): number };
  };
  export = murmurhash3;
}
