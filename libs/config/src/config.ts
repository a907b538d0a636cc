import { z } from "zod";

/** One error naming every bad variable, so a misconfigured start fails once with the whole story. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Reads and validates the environment once; only entry points call this. */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: Record<string, string | undefined>): Readonly<z.infer<S>> {
  // Empty strings mean "unset" in shells and compose files; treat them so defaults apply.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`));
  }
  return deepFreeze(parsed.data);
}

const booleanString = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");

/** A comma-separated list, e.g. INIT_ADMIN_API_TOKENS. */
const commaList = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

export const envSchemas = {
  port: z.coerce.number().int().min(0).max(65535),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  url: z.string().url(),
  booleanString,
  commaList,
};
