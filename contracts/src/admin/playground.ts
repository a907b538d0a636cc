import { permissions, requires } from "../route-access.js";
import { c, errorResponses, routerOptions } from "../common.js";
import { playgroundRequestSchema, playgroundResponseSchema } from "../schemas/index.js";

export const playgroundContract = c.router(
  {
    evaluate: {
      method: "POST",
      path: "/playground",
      summary: "Evaluate every flag for a context",
      description:
        "Evaluates the flags of `projects` (all when absent or `*`) in `environment` for `context` with the SDKs' rules, and " +
        "says why: each strategy's result with each of its constraints and segments, and whether a parent flag's condition " +
        "holds. `isEnabled` and `variant` are what an SDK answers for that context. An unknown environment is refused.",
      body: playgroundRequestSchema,
      metadata: {
        ...requires(permissions.read),
        requestExample: {
          environment: "development",
          projects: "*",
          context: { appName: "checkout", userId: "42", properties: { tier: "gold" } },
        },
      },
      responses: { 200: playgroundResponseSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
