import { describe, expect, it } from "vitest";
import { redactSecretsInUrl } from "./url-redaction.js";

describe("redactSecretsInUrl", () => {
  it.each([
    ["/api/admin/api-tokens/default%3Adevelopment.3bb116f76531bcff9f2c", "/api/admin/api-tokens/default%3Adevelopment.[redacted]"],
    ["/api/admin/api-tokens/*:*.refadmintoken", "/api/admin/api-tokens/*:*.[redacted]"],
    ["/api/admin/api-tokens/%5B%5D%3Aproduction.abc?x=1", "/api/admin/api-tokens/%5B%5D%3Aproduction.[redacted]?x=1"],
    ["/invite/e327e54b391be6c094e37c571f476e40/signup", "/invite/[redacted]/signup"],
    ["api/admin/invite-link/tokens/e327e54b391be6c094e37c571f476e40", "api/admin/invite-link/tokens/[redacted]"],
  ])("masks %s", (url, expected) => {
    expect(redactSecretsInUrl(url)).toBe(expected);
  });

  it.each(["/api/admin/projects/default/features/my.flag", "/api/client/features?project=default", "/api/admin/events/a-b"])(
    "leaves %s alone",
    (url) => {
      expect(redactSecretsInUrl(url)).toBe(url);
    },
  );
});
