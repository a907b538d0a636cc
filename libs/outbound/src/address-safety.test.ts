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
