import { c, errorResponses, routerOptions } from "./common.js";
import { permissions, requires } from "./route-access.js";
import { feedbackInputSchema, feedbackSchema } from "./schemas/index.js";

/** `POST /feedback`. The spec shows no error statuses; a bad body is a 400 like everywhere else. */
export const feedbackContract = c.router(
  {
    create: {
      method: "POST",
      path: "/feedback",
      summary: "Send feedback",
      description: "Stores feedback from a user of the admin UI (a category, a difficulty score and free text).",
      metadata: {
        ...requires(permissions.read),
        requestExample: {
          category: "import",
          userType: "developer",
          difficultyScore: 2,
          positive: "The validate step",
          areasForImprovement: "Show a diff first",
        },
      },
      body: feedbackInputSchema,
      responses: { 200: feedbackSchema, ...errorResponses(400, 401, 415) },
    },
  },
  routerOptions,
);
export type FeedbackContract = typeof feedbackContract;
