import { describe, expect, it } from "vitest";
import { localPath } from "./base-url.js";
import { domainAllowed } from "./sso-sign-in.js";
import { valuesAt } from "./values-at.js";

describe("single sign-on rules", () => {
  it("auto-creates only for the listed email domains, any domain when none is listed", () => {
    expect(domainAllowed("ann@Example.com", "example.com, acme.org")).toBe(true);
    expect(domainAllowed("bob@acme.org", "example.com,@acme.org")).toBe(true);
    expect(domainAllowed("eve@example.com.evil.org", "example.com")).toBe(false);
    expect(domainAllowed("eve@sub.example.com", "example.com")).toBe(false);
    expect(domainAllowed("ann@anywhere.net", "")).toBe(true);
    expect(domainAllowed("ann@anywhere.net", undefined)).toBe(true);
  });

  it("reads the groups at a dotted path, as a string or a list of strings", () => {
    const profile = { groups: ["a", "b", 3], single: "solo", attributes: { memberOf: ["x"] }, nothing: null };
    expect(valuesAt(profile, "groups")).toEqual(["a", "b"]);
    expect(valuesAt(profile, "$.groups")).toEqual(["a", "b"]);
    expect(valuesAt(profile, "single")).toEqual(["solo"]);
    expect(valuesAt(profile, "attributes.memberOf")).toEqual(["x"]);
    expect(valuesAt(profile, "missing.path")).toEqual([]);
    expect(valuesAt(profile, "nothing.deeper")).toEqual([]);
    expect(valuesAt(profile, "constructor")).toEqual([]);
  });

  it("goes back only to a page of this server after signing in", () => {
    expect(localPath("/projects/default?x=1")).toBe("/projects/default?x=1");
    for (const elsewhere of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "", undefined, 42])
      expect(localPath(elsewhere)).toBe("/");
  });
});
