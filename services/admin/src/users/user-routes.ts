import express, { type Router } from "express";
import { adminContract } from "@vexil/contracts";
import { AuthenticationRequired, NoAccessError } from "@vexil/errors";
import { principalOf, type AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import { permissions } from "../access/permissions.js";
import { rolePermits, rootRoleByName, rootRoles } from "../roles/root-roles.js";
import type { PersonalAccessTokenService } from "./personal-access-token-service.js";
import type { UserService } from "./user-service.js";

const allPermissions = Object.values(permissions);

export function userRoutes({
  users,
  personalAccessTokens,
  access,
}: {
  users: UserService;
  personalAccessTokens: PersonalAccessTokenService;
  access: AccessService;
}): Router {
  const router = express.Router();

  /**
   * Personal access tokens and passwords belong to people; API tokens have neither. The contract
   * leaves these routes unguarded so that a token is told it needs a person before READ is checked.
   */
  const signedInUser = (req: object) => {
    const principal = principalOf(req);
    if (!principal) throw new AuthenticationRequired("You must sign in");
    if (principal.kind !== "user") throw new NoAccessError("a signed-in user (API tokens have no personal access tokens or password)");
    const sessionId = principal.via === "session" ? principal.sessionId : undefined;
    return { user: principal.user, actor: access.assert(req, permissions.read), sessionId };
  };

  mountGuardedContract(
    router,
    adminContract.users,
    { access },
    {
      list: async () => {
        return { status: 200, body: { users: await users.list(), rootRoles: [...rootRoles] } };
      },
      create: async ({ body, actor }) => {
        return { status: 201, body: await users.create(body, actor) };
      },
      get: async ({ params }) => {
        return { status: 200, body: await users.get(params.id) };
      },
      update: async ({ params, body, actor }) => {
        return { status: 200, body: await users.update(params.id, body, actor) };
      },
      delete: async ({ params, actor }) => {
        await users.delete(params.id, actor);
        return { status: 200, body: undefined };
      },
      changePassword: async ({ params, body, actor }) => {
        await users.changePassword(params.id, body.password, actor);
        return { status: 200, body: undefined };
      },
      changeOwnPassword: async ({ body, req }) => {
        const { user, actor, sessionId } = signedInUser(req);
        await users.changeOwnPassword(user.id, body, actor, sessionId);
        return { status: 200, body: undefined };
      },
      current: async ({ req }) => {
        const principal = principalOf(req);
        if (!principal) throw new AuthenticationRequired("You must sign in");
        if (principal.kind === "api-token") {
          const held = principal.grant.type === "admin" ? [permissions.admin] : [];
          return {
            status: 200,
            body: {
              user: { username: principal.grant.tokenName, type: principal.grant.type, permissions: held },
              permissions: held.map((permission) => ({ permission })),
            },
          };
        }
        const { id, name, username, email, rootRole: role } = principal.user;
        const held = role === "Admin" ? [permissions.admin] : allPermissions.filter((p) => rolePermits(role, p));
        // A service account's token acts as the account, which is no person: it says so from what it signed in as.
        const account = (await users.exists(id))
          ? await users.get(id)
          : { id, name, username, email, rootRole: rootRoleByName(role).id, accountType: "Service Account" };
        return {
          status: 200,
          body: {
            user: { ...account, permissions: held },
            permissions: held.map((permission) => ({ permission })),
          },
        };
      },
      listTokens: async ({ req }) => {
        const { user } = signedInUser(req);
        return { status: 200, body: { pats: await personalAccessTokens.list(user.id) } };
      },
      createToken: async ({ body, req }) => {
        const { user, actor } = signedInUser(req);
        return { status: 201, body: await personalAccessTokens.create(user.id, body, actor) };
      },
      deleteToken: async ({ params, req }) => {
        const { user, actor } = signedInUser(req);
        await personalAccessTokens.delete(user.id, params.id, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
