import express, { type ErrorRequestHandler, type RequestHandler, type Router } from "express";
import {
  AuthenticationRequired,
  ContentTooLarge,
  ContentTypeerror,
  NoAccessError,
  NotFoundError,
  NotReady,
  ValidationError,
} from "@vexil/errors";
import type { Logger } from "@vexil/logger";
import { grantOf } from "../request-scope.js";
import { environmentFor, scopeFor } from "../snapshots/scope.js";
import type { SnapshotHolder } from "../snapshots/snapshot-holder.js";
import { bulkEtag, evaluateOfrepFlag, evaluateOfrepFlags, ofrepContext } from "./ofrep-evaluation.js";

export const ofrepPrefix = "/ofrep/v1";

/** OFREP names the API key header `X-API-Key`; the token checks read `Authorization`. */
export const apiKeyHeader: RequestHandler = (req, _res, next) => {
  const apiKey = req.headers["x-api-key"];
  if (!req.headers.authorization && typeof apiKey === "string") req.headers.authorization = apiKey;
  next();
};

/**
 * `POST /ofrep/v1/evaluate/flags/:key` and `POST /ofrep/v1/evaluate/flags`: the OpenFeature Remote
 * Evaluation Protocol over the same snapshots and evaluator as the Unleash SDK APIs. Requests are
 * authenticated before these routes (client or frontend tokens).
 */
export function ofrepRoutes({ snapshots }: { snapshots: SnapshotHolder }): Router {
  const router = express.Router();
  const has = (environment: string) => snapshots.has(environment);

  router.post(`${ofrepPrefix}/evaluate/flags/:key`, (req, res) => {
    const key = req.params.key!;
    const grant = grantOf(req);
    const snapshot = snapshots.get(environmentFor(grant, has));
    const outcome = ofrepContext(req.body, req.ip);
    if (!("context" in outcome)) return void res.status(400).json({ key, ...outcome });
    const answer = evaluateOfrepFlag(snapshot, key, outcome.context, scopeFor(grant));
    if (!answer) return void res.status(404).json({ key, errorCode: "FLAG_NOT_FOUND", errorDetails: `Flag '${key}' was not found` });
    res.json(answer);
  });

  router.post(`${ofrepPrefix}/evaluate/flags`, (req, res) => {
    const grant = grantOf(req);
    const snapshot = snapshots.get(environmentFor(grant, has));
    const outcome = ofrepContext(req.body, req.ip);
    if (!("context" in outcome)) return void res.status(400).json(outcome);
    const scope = scopeFor(grant);
    const etag = bulkEtag(snapshot, (req.body as { context: unknown }).context, scope);
    res.setHeader("etag", etag);
    const cached = req.headers["if-none-match"];
    if (cached && cached.split(",").some((tag) => tag.trim() === etag)) return void res.status(304).end();
    res.json({ flags: evaluateOfrepFlags(snapshot, outcome.context, scope) });
  });
  return router;
}

/** Errors that keep the API's own shape on OFREP paths: credentials, unknown paths, body limits, not ready yet. */
const passedThrough = [AuthenticationRequired, NoAccessError, NotFoundError, ContentTooLarge, ContentTypeerror, NotReady];

/**
 * OFREP's error bodies for what fails before or inside the routes: a body that is not JSON is
 * `PARSE_ERROR` (400), anything unexpected `GENERAL` (500) with `errorDetails`.
 */
export function ofrepErrors(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (!req.path.startsWith(`${ofrepPrefix}/`) || res.headersSent || passedThrough.some((type) => err instanceof type)) return next(err);
    const key = req.path.startsWith(`${ofrepPrefix}/evaluate/flags/`) ? decodeURIComponent(req.path.split("/").pop()!) : undefined;
    if (err instanceof ValidationError) {
      return void res.status(400).json({ ...(key !== undefined ? { key } : {}), errorCode: "PARSE_ERROR", errorDetails: err.message });
    }
    logger.error({ err }, "OFREP evaluation failed");
    res.status(500).json({ errorDetails: "An internal error occurred while evaluating flags" });
  };
}
