import express, { type Router } from "express";
import { frontendContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import { featuresUsed, type SeenFeatures } from "../metrics/seen-features.js";
import { grantOf } from "../request-scope.js";
import { environmentFor, scopeFor } from "../snapshots/scope.js";
import type { SnapshotHolder } from "../snapshots/snapshot-holder.js";
import { frontendContext, frontendToggles } from "./frontend-evaluation.js";

/** `/api/frontend`: evaluation for browser and mobile SDKs with a frontend token. */
export function frontendRoutes({ snapshots, seen }: { snapshots: SnapshotHolder; seen: SeenFeatures }): Router {
  const router = express.Router();
  const has = (environment: string) => snapshots.has(environment);

  mountContract(router, frontendContract, {
    getFeatures: async ({ req, query }) => {
      const grant = grantOf(req);
      const snapshot = snapshots.get(environmentFor(grant, has));
      const context = frontendContext(query, req.ip);
      return { status: 200, body: { toggles: frontendToggles(snapshot, context, scopeFor(grant)) } };
    },
    postFeatures: async ({ req, body }) => {
      const grant = grantOf(req);
      const snapshot = snapshots.get(environmentFor(grant, has));
      const { context: nested, ...bare } = body;
      const context = frontendContext(nested ?? bare, req.ip);
      return { status: 200, body: { toggles: frontendToggles(snapshot, context, scopeFor(grant)) } };
    },
    register: async () => ({ status: 200, body: undefined }),
    metrics: async ({ req, body }) => {
      seen.add(environmentFor(grantOf(req), has), featuresUsed(body));
      return { status: 200, body: undefined };
    },
  });
  return router;
}
