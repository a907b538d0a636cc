import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nonPublicAddressReason, targetUrlProblem } from "./address-safety.js";

describe("nonPublicAddressReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["fe80::1", "link-local"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::", "unspecified"],
  ])("refuses %s (%s)", (address, kind) => {
    expect(nonPublicAddressReason(address)).toContain(kind);
  });

  it.each(["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111"])("accepts public %s", (address) => {
    expect(nonPublicAddressReason(address)).toBeUndefined();
  });
});

describe("targetUrlProblem", () => {
  const strict = { allowPrivate: false };
  it("refuses private literal hosts, with the reason and the way to allow them", () => {
    expect(targetUrlProblem("http://127.0.0.1:8080/hook", strict)).toMatch(/127\.0\.0\.1, a loopback address.*ADDONS_ALLOW_PRIVATE_URLS/);
    expect(targetUrlProblem("http://[::1]/hook", strict)).toMatch(/::1, a loopback address/);
    expect(targetUrlProblem("http://[fe80::1]/hook", strict)).toMatch(/link-local/);
    // The URL parser normalises shorthand forms before the check.
    expect(targetUrlProblem("http://127.1/hook", strict)).toMatch(/loopback/);
    expect(targetUrlProblem("http://0x7f000001/hook", strict)).toMatch(/loopback/);
  });

  it("refuses what is not an http(s) URL whatever the setting", () => {
    expect(targetUrlProblem("not a url", { allowPrivate: true })).toBe("is not a valid URL");
    expect(targetUrlProblem("ftp://93.184.216.34/x", { allowPrivate: true })).toMatch(/http or https, not ftp/);
    expect(targetUrlProblem("file:///etc/passwd", { allowPrivate: true })).toMatch(/not file/);
  });

  it("accepts public addresses and host names (names are checked at delivery)", () => {
    expect(targetUrlProblem("https://93.184.216.34/hook", strict)).toBeUndefined();
    expect(targetUrlProblem("https://hooks.example.com/x", strict)).toBeUndefined();
    expect(targetUrlProblem("http://localhost:1234/x", strict)).toBeUndefined();
  });

  it("accepts private addresses when allowed", () => {
    expect(targetUrlProblem("http://127.0.0.1:8080/hook", { allowPrivate: true })).toBeUndefined();
  });
});

/** IPv4 addresses no outbound request may reach, drawn from each non-public range. */
const privateIpv4 = fc.oneof(
  fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
);
const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

/** Every IPv6 notation that embeds an IPv4 address. */
const embeddings: Record<string, (v4: number[]) => string> = {
  "IPv4-mapped": ([a, b, c, d]) => `::ffff:${a}.${b}.${c}.${d}`,
  "IPv4-mapped, hex": ([a, b, c, d]) => `::ffff:${hex(a!, b!)}:${hex(c!, d!)}`,
  "IPv4-compatible": ([a, b, c, d]) => `::${a}.${b}.${c}.${d}`,
  "IPv4-compatible, hex": ([a, b, c, d]) => `::${hex(a!, b!)}:${hex(c!, d!)}`,
  SIIT: ([a, b, c, d]) => `::ffff:0:${a}.${b}.${c}.${d}`,
  NAT64: ([a, b, c, d]) => `64:ff9b::${a}.${b}.${c}.${d}`,
  "NAT64 local-use": ([a, b, c, d]) => `64:ff9b:1::${a}.${b}.${c}.${d}`,
  "6to4": ([a, b, c, d]) => `2002:${hex(a!, b!)}:${hex(c!, d!)}::1`,
  "Teredo client": ([a, b, c, d]) => `2001:0:4136:e378:8000:63bf:${hex(a! ^ 0xff, b! ^ 0xff)}:${hex(c! ^ 0xff, d! ^ 0xff)}`,
  "Teredo server": ([a, b, c, d]) => `2001:0:${hex(a!, b!)}:${hex(c!, d!)}::1`,
};

describe("IPv6 forms of private IPv4 addresses", () => {
  it.each(Object.entries(embeddings))("refuses every private address written %s, as an address and as a URL", (_form, embed) => {
    fc.assert(
      fc.property(privateIpv4, (v4) => {
        const address = embed(v4);
        expect(nonPublicAddressReason(address), address).toBeDefined();
        expect(targetUrlProblem(`http://[${address}]:8080/hook`, { allowPrivate: false }), address).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("judges an IPv4-mapped public address as the public address it is", () => {
    expect(nonPublicAddressReason("::ffff:8.8.8.8")).toBeUndefined();
    expect(nonPublicAddressReason("::127.0.0.1")).toMatch(/loopback address \(127\.0\.0\.1, written as IPv6\)/);
  });
});
