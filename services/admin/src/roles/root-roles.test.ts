import { describe, expect, it } from "vitest";
import { permissions } from "../access/permissions.js";
import { resolveRootRole, rolePermits } from "./root-roles.js";

describe("root roles", () => {
  it("let every role read", () => {
    for (const role of ["Admin", "Editor", "Viewer"] as const) expect(rolePermits(role, permissions.read)).toBe(true);
  });

  it("keep Viewers from every change", () => {
    for (const permission of Object.values(permissions).filter((p) => p !== "READ")) {
      expect(rolePermits("Viewer", permission)).toBe(false);
    }
  });

  it("let Editors change the flag model but not tokens, users, addons, signals or SAML", () => {
    for (const p of [
      permissions.createFeature,
      permissions.updateFeatureEnvironment,
      permissions.createProject,
      permissions.updateSegment,
      permissions.createStrategy,
      permissions.createTagType,
      permissions.createContextField,
      permissions.createEnvironment,
      permissions.createChangeRequest,
    ]) {
      expect(rolePermits("Editor", p), p).toBe(true);
    }
    for (const p of [
      permissions.admin,
      permissions.createApiToken,
      permissions.readApiToken,
      permissions.deleteApiToken,
      permissions.createAddon,
      "CREATE_SIGNAL_ENDPOINT",
      "SOME_NEW_PERMISSION",
    ]) {
      expect(rolePermits("Editor", p), p).toBe(false);
    }
  });

  it("let Admins do everything", () => {
    expect(rolePermits("Admin", "ANYTHING_AT_ALL")).toBe(true);
  });

  it("resolve by id or name and refuse unknown ids", () => {
    expect(resolveRootRole(2).name).toBe("Editor");
    expect(resolveRootRole("Viewer").id).toBe(3);
    expect(() => resolveRootRole(99)).toThrow(/root role with id 99/);
  });
});
