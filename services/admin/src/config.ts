import { z } from "zod";
import { envSchemas } from "@vexil/config";
import { platformEnv, secretsEnv } from "@vexil/runtime";
import { signalLimitsEnv } from "./signals/signal-limits.js";
import { segmentLimitsEnv } from "./segments/segment-limits.js";
import { defaultAdminPassword, defaultAdminUsername } from "./users/initial-admin.js";
import { usageMetricsEnv } from "./usage-metrics/usage-retention.js";
import { loginRateLimitEnv } from "./auth/login-rate-limit.js";
import { eventRetentionEnv } from "./events/event-retention.js";
import { actionRetentionEnv } from "./actions/action-retention.js";
import { clientInstanceRetentionEnv } from "./client-applications/instance-retention.js";

export const adminEnv = platformEnv.extend({
  ...signalLimitsEnv.shape,
  ...segmentLimitsEnv.shape,
  ...loginRateLimitEnv.shape,
  ...usageMetricsEnv.shape,
  ...eventRetentionEnv.shape,
  ...actionRetentionEnv.shape,
  ...clientInstanceRetentionEnv.shape,
  ...secretsEnv.shape,
  PORT: envSchemas.port.default(4243),
  /** Seed tokens, comma-separated secrets, as Unleash takes them. */
  INIT_ADMIN_API_TOKENS: envSchemas.commaList.default(""),
  INIT_CLIENT_API_TOKENS: envSchemas.commaList.default(""),
  INIT_FRONTEND_API_TOKENS: envSchemas.commaList.default(""),
  /** Lets addon targets be private, loopback or link-local addresses (local setups and tests). */
  ADDONS_ALLOW_PRIVATE_URLS: envSchemas.booleanString.default("false"),
  /** The first admin user, created on the first start only (Unleash's defaults). */
  INIT_ADMIN_USERNAME: z.string().min(1).default(defaultAdminUsername),
  INIT_ADMIN_PASSWORD: z.string().min(1).default(defaultAdminPassword),
  /** Prefix of invite-link URLs, e.g. https://flags.example.com. */
  PUBLIC_URL: envSchemas.url.optional(),
  /** Mark the session cookie Secure (when served over HTTPS). */
  SECURE_COOKIES: envSchemas.booleanString.default("false"),
  /** Lets the built-in admin (INIT_ADMIN_USERNAME) sign in with a password while password sign-in is turned off. */
  PASSWORD_SIGN_IN_BREAK_GLASS: envSchemas.booleanString.default("false"),
});
export type AdminConfig = z.infer<typeof adminEnv>;
