import type { Logger } from "@vexil/logger";
import type { UserService } from "./user-service.js";
import { systemActor } from "../access/actor.js";

/** Unleash's first-start credentials, used unless INIT_ADMIN_USERNAME / INIT_ADMIN_PASSWORD say otherwise. */
export const defaultAdminUsername = "admin";
export const defaultAdminPassword = "unleash4all";

/** What a start did about the first admin user, for the banner and the warning. */
export interface InitialAdmin {
  username: string;
  /** Created by this start (the first one). */
  createdNow: boolean;
  /** The user's id while it still signs in with the default password `unleash4all`. */
  defaultPasswordUserId: number | undefined;
}

/**
 * Creates the first admin user on the first start and, at every start, warns while that user still
 * has the well-known default password: the installation is open to anyone who reaches it.
 */
export async function ensureInitialAdmin(
  users: UserService,
  settings: { INIT_ADMIN_USERNAME?: string; INIT_ADMIN_PASSWORD?: string },
  logger: Logger,
): Promise<InitialAdmin> {
  const username = settings.INIT_ADMIN_USERNAME ?? defaultAdminUsername;
  const createdNow = await users.ensureInitialAdmin(
    { username, password: settings.INIT_ADMIN_PASSWORD ?? defaultAdminPassword },
    systemActor,
  );
  if (createdNow) logger.info({ username }, "created the initial admin user");
  const defaultPasswordUserId = await users.idIfPassword(username, defaultAdminPassword);
  if (defaultPasswordUserId !== undefined) {
    logger.warn(
      { username },
      `the admin user "${username}" still has the default password: change it (POST /api/admin/user-admin/${defaultPasswordUserId}/change-password), or set INIT_ADMIN_PASSWORD before the first start`,
    );
  }
  return { username, createdNow, defaultPasswordUserId };
}

/** Banner lines about the first admin user; empty once its password has been changed. */
export function initialAdminNotice(admin: InitialAdmin | undefined, publicUrl: string): string[] {
  if (!admin) return [];
  const changeIt = [
    "Change it now (or set INIT_ADMIN_PASSWORD before the first start):",
    `  curl -X POST -H 'Authorization: <admin token>' -H 'Content-Type: application/json' \\`,
    `    -d '{"password":"<new password: 10+ characters, upper and lower case, a digit, a symbol>"}' ${publicUrl}/api/admin/user-admin/${admin.defaultPasswordUserId}/change-password`,
  ];
  const defaultPassword = admin.defaultPasswordUserId !== undefined;
  if (admin.createdNow && defaultPassword) {
    return [`Initial admin user created: ${admin.username} / ${defaultAdminPassword} (sign in at POST /auth/simple/login).`, ...changeIt];
  }
  if (admin.createdNow) return [`Initial admin user created: ${admin.username}, with the password from INIT_ADMIN_PASSWORD.`];
  if (defaultPassword) {
    // The password itself only ever reaches the console of the first start; logs are kept and shipped.
    return [`WARNING: the admin user ${admin.username} still has the default password shown at the first start.`, ...changeIt];
  }
  return [];
}
