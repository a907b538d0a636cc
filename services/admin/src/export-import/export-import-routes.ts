import express, { type Request, type Router } from "express";
import { adminContract } from "@vexil/contracts";
import type { AccessService } from "../access/access-service.js";
import { mountGuardedContract } from "../access/guarded-contract.js";
import { permissions } from "../access/permissions.js";
import type { ExportService } from "./export-service.js";
import type { ImportService } from "./import-service.js";

/** Private projects are invisible to non-members here as on every other admin path. */
export interface ProjectPrivacy {
  maySee(req: Request, project: string): Promise<boolean>;
  assertMaySee(req: Request, project: string): Promise<void>;
}

/**
 * `/api/admin/features-batch/*`: export needs read access (and leaves out flags of private projects
 * the caller is not a member of); validate and import the right to create and change flags in the project.
 */
export function exportImportRoutes({
  exporter,
  importer,
  access,
  privacy,
}: {
  exporter: ExportService;
  importer: ImportService;
  access: AccessService;
  privacy: ProjectPrivacy;
}): Router {
  const router = express.Router();
  mountGuardedContract(
    router,
    adminContract.exportImport,
    { access },
    {
      export: async ({ body, req, res, actor }) => {
        if (body.project) await privacy.assertMaySee(req, body.project);
        const result = await exporter.export(body, actor, (project) => privacy.maySee(req, project));
        if (body.downloadFile) res.setHeader("content-disposition", `attachment; filename="export-${body.environment}.json"`);
        return { status: 200, body: result };
      },
      validate: async ({ body, req }) => {
        await privacy.assertMaySee(req, body.project);
        return { status: 200, body: await importer.validate(body) };
      },
      import: async ({ body, req }) => {
        await privacy.assertMaySee(req, body.project);
        // A second permission, in the environment the body names: a route declares one.
        const actor = access.assert(req, permissions.updateFeatureEnvironment, { project: body.project, environment: body.environment });
        await importer.import(body, actor);
        return { status: 200, body: undefined };
      },
    },
  );
  return router;
}
