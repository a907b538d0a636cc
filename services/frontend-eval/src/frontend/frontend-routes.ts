import express, { type Request, type Response, type Router } from "express";
import { frontendContextQuerySchema, frontendContract } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import { mountContract } from "@vexil/http";
import type { ClientInstances } from "../metrics/client-instances.js";
import type { UsageCounts } from "../metrics/usage-counts.js";
import { featuresUsed, type SeenFeatures } from "../metrics/seen-features.js";
import { grantOf } from "../request-scope.js";
import { environmentFor, scopeFor } from "../snapshots/scope.js";
import type { SnapshotHolder } from "../snapshots/snapshot-holder.js";
import { frontendContext, frontendToggles, frontendTogglesText, sendJsonText } from "./frontend-evaluation.js";

/** `/api/frontend`: evaluation for browser and mobile SDKs with a frontend token. */
export function frontendRoutes({
  snapshots,
  seen,
  instances,
  usage,
}: {
  snapshots: SnapshotHolder;
  seen: SeenFeatures;
  instances: ClientInstances;
  usage: UsageCounts;
}): Router {
  const router = express.Router();
  const has = (environment: string) => snapshots.has(environment);

  // The hot path, written on express directly: the contract's GET route describes it, but the
  // contract handler's per-request work showed in profiles and this route needs none of it.
  router.get("/api/frontend", (req: Request, res: Response) => {
    const query = frontendContextQuerySchema.safeParse(req.query);
    if (!query.success) {
      const details = query.error.issues.map((issue) => ({ path: ["query", ...issue.path].join("."), message: issue.message }));
      throw new ValidationError(`Invalid ${details[0]?.path}: ${details[0]?.message}`, details);
    }
    const grant = grantOf(req);
    const snapshot = snapshots.get(environmentFor(grant, has));
    sendJsonText(res, frontendTogglesText(snapshot, frontendContext(query.data, req.ip), scopeFor(grant)));
  });

  const { postFeatures, register, metrics } = frontendContract;
  mountContract(
    router,
    { postFeatures, register, metrics },
    {
      postFeatures: async ({ req, body }) => {
        const grant = grantOf(req);
        const snapshot = snapshots.get(environmentFor(grant, has));
        const { context: nested, ...bare } = body;
        const context = frontendContext(nested ?? bare, req.ip);
        return { status: 200, body: { toggles: frontendToggles(snapshot, context, scopeFor(grant)) } };
      },
      register: async ({ req, body }) => {
        const grant = grantOf(req);
        instances.registered(body, "frontend", { grant, environment: environmentFor(grant, has), clientIp: req.ip });
        return { status: 200, body: undefined };
      },
      metrics: async ({ req, body }) => {
        const grant = grantOf(req);
        const environment = environmentFor(grant, has);
        const used = featuresUsed(body);
        seen.add(environment, used);
        usage.add(environment, body);
        instances.sentMetrics(body, "frontend", { grant, environment, clientIp: req.ip }, used);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
