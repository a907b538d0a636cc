import { describe, expect, it } from "vitest";
import {
  AuthenticationRequired,
  ContentTooLarge,
  ContentTypeerror,
  NameExistsError,
  NoAccessError,
  NotFoundError,
  ValidationError,
  toVexilError,
} from "./errors.js";

describe("error hierarchy", () => {
  it.each([
    [new ValidationError("bad"), 400, "ValidationError"],
    [new AuthenticationRequired("who"), 401, "AuthenticationRequired"],
    [new NoAccessError("UPDATE_FEATURE"), 403, "NoAccessError"],
    [new NotFoundError("gone"), 404, "NotFoundError"],
    [new NameExistsError("dup"), 409, "NameExistsError"],
    [new ContentTooLarge("big"), 413, "ContentTooLarge"],
    [new ContentTypeerror("type"), 415, "ContentTypeerror"],
  ])("%s maps to its status and the spec's name", (err, status, name) => {
    expect(err.status).toBe(status);
    const body = err.toBody();
    expect(body).toEqual({ id: expect.any(String), name, message: err.message });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("names the missing permission and environment", () => {
    expect(new NoAccessError("UPDATE_FEATURE_ENVIRONMENT", "production").message).toBe(
      "You don't have the required permission: UPDATE_FEATURE_ENVIRONMENT in environment production",
    );
  });

  it("keeps field details", () => {
    const body = new ValidationError("bad", [{ path: "name", message: "Required" }]).toBody();
    expect(body.details).toEqual([{ path: "name", message: "Required" }]);
  });

  it("hides unexpected errors behind InternalError", () => {
    const mapped = toVexilError(new TypeError("secret internals"));
    expect(mapped.status).toBe(500);
    expect(mapped.name).toBe("InternalError");
    expect(mapped.message).not.toContain("secret");
  });
});
