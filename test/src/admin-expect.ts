/**
 * Admin API calls that assert what they get, for the end-to-end files on the flag model: the
 * status (and schema) of an answer, the spec's error body, and the guard every admin route has.
 */
import { expect } from "vitest";
import type { z } from "zod";
import type { ApiInit, TestSystem } from "./harness.js";

/** A flexible rollout on half the users of one app, as the flag-model tests add it. */
export const strategyBody = {
  name: "flexibleRollout",
  title: "half",
  parameters: { rollout: "50", stickiness: "default", groupId: "g" },
  constraints: [{ contextName: "appName", operator: "IN", values: ["web"] }],
};

export function adminExpect(vexil: () => TestSystem) {
  const call = <T = any>(path: string, init: ApiInit, status: number, schema?: z.ZodType<T>) =>
    vexil().expectStatus(path, init, status, schema);
  const expectError = (path: string, init: ApiInit, status: number, name: string) => vexil().expectError(path, init, status, name);
  return {
    call,
    get: <T = any>(path: string, schema?: z.ZodType<T>) => call(path, {}, 200, schema),
    expectError,
    /** Refused requests: no token (401), a client token (403). */
    async expectGuarded(path: string, init: ApiInit = {}) {
      await expectError(path, { ...init, token: null }, 401, "AuthenticationRequired");
      await expectError(path, { ...init, token: vexil().tokens.client }, 403, "NoAccessError");
    },
    /** Asserts the event log holds at least one event of each type. */
    async expectEventTypes(types: string[]) {
      const { events } = await call("/api/admin/events?limit=1000", {}, 200);
      const recorded = new Set((events as Array<{ type: string }>).map((e) => e.type));
      for (const type of types) expect(recorded, type).toContain(type);
    },
  };
}
