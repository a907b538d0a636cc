import express from "express";
import { apiTokenAuthenticator, authenticate, requireTokenType } from "@vexil/auth";
import { NotFoundError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { openSharedTokenSet, type Engines, type VexilService } from "@vexil/runtime";
import type { FrontendEvalConfig } from "./config.js";

export interface FrontendEvalDeps {
  engines: Engines;
  settings: Pick<FrontendEvalConfig, "FRONTEND_API_ENABLED">;
  logger: Logger;
}

/** Serves the SDK surfaces (`/api/frontend`, `/api/client`) from memory. */
export async function createFrontendEvalService({ engines, settings }: FrontendEvalDeps): Promise<VexilService> {
  const sharedTokens = await openSharedTokenSet(engines.cache, engines.bus);
  const authenticateToken = authenticate([apiTokenAuthenticator(sharedTokens.tokens)]);

  const router = express.Router();
  router.use("/api/frontend", (_req, _res, next) =>
    next(settings.FRONTEND_API_ENABLED ? undefined : new NotFoundError("The frontend API is disabled")),
  );
  router.use("/api/frontend", authenticateToken, requireTokenType(["frontend"]));
  router.use("/api/client", authenticateToken, requireTokenType(["client"]));

  return {
    router,
    readiness: [],
    async start() {},
    async stop() {
      sharedTokens.stop();
    },
  };
}
