import type { PayloadSchema } from "./topic.js";

/** A schema shaped like zod's safeParse, accepting what `accepts` says, for this library's tests. */
export function schemaOf<T>(accepts: (payload: unknown) => payload is T): PayloadSchema<T> {
  return {
    safeParse: (payload) => (accepts(payload) ? { success: true, data: payload } : { success: false, error: { issues: ["rejected"] } }),
  };
}

export const anything = schemaOf((_payload: unknown): _payload is unknown => true);
export const counted = schemaOf(
  (payload: unknown): payload is { count: number } =>
    typeof payload === "object" && payload !== null && typeof (payload as { count?: unknown }).count === "number",
);

// Inferred types, without `wildcard`: topics with one concrete subject, as publishing needs.
export const noticeOn = <T>(subject: string, schema: PayloadSchema<T>) => ({ kind: "notice" as const, subject, schema });
export const eventOn = <T>(subject: string, schema: PayloadSchema<T>) => ({ kind: "event" as const, subject, schema });
export const requestOn = <Req, Res>(subject: string, request: PayloadSchema<Req>, reply: PayloadSchema<Res>) => ({
  kind: "request" as const,
  subject,
  request,
  reply,
});
