import express, { type Router } from "express";
import { feedbackContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import type { FeedbackStore } from "./feedback-store.js";

/**
 * POST /feedback. Unleash serves product feedback to signed-in callers (the UI session) with no
 * further permission, so any authenticated caller may send it; anonymous requests get 401.
 */
export function feedbackRoutes({ feedback, access, clock }: { feedback: FeedbackStore; access: AccessService; clock: () => Date }): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    feedbackContract,
    { access },
    {
      create: async ({ body, actor }) => {
        const doc = {
          _id: await feedback.nextId(),
          category: body.category,
          userType: body.userType ?? null,
          difficultyScore: body.difficultyScore ?? null,
          positive: body.positive ?? null,
          areasForImprovement: body.areasForImprovement ?? null,
          createdAt: clock(),
          createdByUserId: actor.userId,
        };
        await feedback.insert(doc);
        const { _id, createdByUserId, createdAt, ...fields } = doc;
        return { status: 200, body: { id: _id, createdAt: createdAt.toISOString(), ...fields } };
      },
    },
  );
  return router;
}
