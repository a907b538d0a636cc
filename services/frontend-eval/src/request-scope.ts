import type { Request } from "express";
import { getPrincipal, type TokenGrant } from "@vexil/auth";
import { AuthenticationRequired } from "@vexil/errors";

/** The API token behind a request that passed `authenticate` and `requireTokenType`. */
export function grantOf(req: object): TokenGrant {
  // ts-rest hands handlers its own request type; it is the same express request underneath.
  const principal = getPrincipal(req as Request);
  if (principal?.kind !== "api-token") throw new AuthenticationRequired("You must provide an API token");
  return principal.grant;
}
