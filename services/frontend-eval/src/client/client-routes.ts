import express, { type Request, type Response, type Router } from "express";
import { clientContract, clientFeaturesQuerySchema, clientSpecHeader } from "@vexil/contracts";
import { NotFoundError, ValidationError } from "@vexil/errors";
import { mountContract } from "@vexil/http";
import type { ZodError } from "zod";
import type { ClientInstances } from "../metrics/client-instances.js";
import type { UsageCounts } from "../metrics/usage-counts.js";
import { featuresUsed, type SeenFeatures } from "../metrics/seen-features.js";
import { grantOf } from "../request-scope.js";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { environmentFor, eventsInScope, inScope, scopeFor, type FeatureScope } from "../snapshots/scope.js";
import type { SnapshotHolder } from "../snapshots/snapshot-holder.js";
import { featuresResponse, inlineSegmentsFor, matchesEtag, preferredCoding } from "./features-response.js";
import { sharedHydrationJson, type StreamingHub } from "./streaming-hub.js";

/** The revision an SDK holds, from `If-None-Match: "<revision>"` (delta) or `Last-Event-ID`. */
export function revisionFrom(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

function queryError(error: ZodError): ValidationError {
  const details = error.issues.map((issue) => ({ path: ["query", ...issue.path].join("."), message: issue.message }));
  return new ValidationError(`Invalid ${details[0]?.path}: ${details[0]?.message}`, details);
}

/**
 * `/api/client/*` for server SDKs with a client token. The feature list, delta and streaming
 * routes are written directly on express: they answer pre-serialised bytes, 304s and event
 * streams, which a JSON contract handler cannot.
 */
export function clientRoutes({
  snapshots,
  streams,
  seen,
  instances,
  usage,
}: {
  snapshots: SnapshotHolder;
  streams: StreamingHub;
  seen: SeenFeatures;
  instances: ClientInstances;
  usage: UsageCounts;
}): Router {
  const router = express.Router();
  const has = (environment: string) => snapshots.has(environment);

  function requestScope(req: Request): { snapshot: EnvironmentSnapshot; scope: FeatureScope } {
    const grant = grantOf(req);
    const query = clientFeaturesQuerySchema.safeParse(req.query);
    if (!query.success) throw queryError(query.error);
    return { snapshot: snapshots.get(environmentFor(grant, has)), scope: scopeFor(grant, query.data) };
  }

  router.get("/api/client/features", async (req: Request, res: Response, next) => {
    try {
      const { snapshot, scope } = requestScope(req);
      const inline = inlineSegmentsFor(req.get(clientSpecHeader));
      const response = featuresResponse(snapshot, scope, inline);
      res.setHeader("etag", response.etag);
      res.setHeader("vary", "Accept-Encoding");
      if (matchesEtag(req.get("if-none-match"), response.etag)) {
        res.status(304).end();
        return;
      }
      res.setHeader("content-type", "application/json; charset=utf-8");
      const coding = preferredCoding(req.get("accept-encoding"));
      if (coding !== "identity") res.setHeader("content-encoding", coding);
      res.end(await response.encodedBody(coding));
    } catch (err) {
      next(err);
    }
  });

  router.get("/api/client/delta", (req: Request, res: Response) => {
    const { snapshot, scope } = requestScope(req);
    const etag = `"${snapshot.revision}"`;
    res.setHeader("etag", etag);
    const held = revisionFrom(req.get("if-none-match"));
    if (held === snapshot.revision) {
      res.status(304).end();
      return;
    }
    const missed = held === undefined ? undefined : snapshots.changesSince(snapshot.environment, held);
    res.type("application/json");
    res.send(missed === undefined ? sharedHydrationJson(snapshot, scope) : JSON.stringify({ events: eventsInScope(scope, missed) }));
  });

  router.get("/api/client/streaming", (req: Request, res: Response, next) => {
    const { snapshot, scope } = requestScope(req);
    const { environment } = snapshot;
    const held = revisionFrom(req.get("last-event-id"));
    streams.connect(req, res, {
      environment,
      scope,
      grant: grantOf(req),
      start: () => ({
        snapshot: snapshots.get(environment),
        missed: held === undefined ? undefined : snapshots.changesSince(environment, held),
      }),
      fail: next,
    });
  });

  mountContract(
    router,
    { getFeature: clientContract.getFeature, register: clientContract.register, metrics: clientContract.metrics },
    {
      getFeature: async ({ req, params }) => {
        const { snapshot, scope } = requestScope(req);
        const inline = inlineSegmentsFor(req.get(clientSpecHeader));
        const feature = snapshot.features.get(params.featureName);
        if (!feature || !inScope(scope, feature.name, feature.project)) {
          throw new NotFoundError(`Could not find feature flag ${params.featureName}`);
        }
        const json = (inline ? snapshot.inlinedFeatureJson() : snapshot.featureJson).get(feature.name) as string;
        return { status: 200, body: JSON.parse(json) };
      },
      register: async ({ req, body }) => {
        const grant = grantOf(req);
        instances.registered(body, "backend", { grant, environment: environmentFor(grant, has), clientIp: req.ip });
        return { status: 202, body: undefined };
      },
      metrics: async ({ req, body }) => {
        const grant = grantOf(req);
        const environment = environmentFor(grant, has);
        const used = featuresUsed(body);
        seen.add(environment, used);
        usage.add(environment, body);
        instances.sentMetrics(body, "backend", { grant, environment, clientIp: req.ip }, used);
        return { status: 202, body: undefined };
      },
    },
  );
  return router;
}
