import { c, errorResponses, routerOptions } from "../common.js";
import {
  healthReportSchema,
  projectOverviewSchema,
  validateArchiveBodySchema,
  validateArchiveResponseSchema,
} from "../schemas/index.js";

export const projectsContract = c.router(
  {
    getOverview: {
      method: "GET",
      path: "/projects/:projectId",
      summary: "Project overview",
      deprecated: true,
      responses: { 200: projectOverviewSchema, ...errorResponses(401, 403, 404) },
    },
    getHealthReport: {
      method: "GET",
      path: "/projects/:projectId/health-report",
      summary: "Project health report",
      responses: { 200: healthReportSchema, ...errorResponses(401, 403, 404) },
    },
    validateArchive: {
      method: "POST",
      path: "/projects/:projectId/archive/validate",
      summary: "Check which dependencies archiving these features would break",
      body: validateArchiveBodySchema,
      responses: { 200: validateArchiveResponseSchema, ...errorResponses(400, 401, 403, 415) },
    },
  },
  routerOptions,
);
