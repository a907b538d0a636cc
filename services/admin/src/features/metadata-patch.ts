import { featureTypeSchema, type FeatureType, type JsonPatchItem } from "@vexil/contracts";
import { OperationDeniedError, ValidationError } from "@vexil/errors";
import { z } from "zod";
import type { FeatureDocument } from "./feature-model.js";
import { metadataOf } from "./feature-response.js";
import { applyJsonPatch } from "./json-patch.js";

/** JSON-patch paths a user may change on a flag (Unleash changes variants and the rest elsewhere). */
const patchablePaths = new Set(["/description", "/type", "/stale", "/impressionData"]);
/** The flag's metadata after a patch: the fields above must keep their types. */
const patchedMetadataSchema = z.object({
  description: z.string().nullable().optional(),
  type: featureTypeSchema,
  stale: z.boolean().optional(),
  impressionData: z.boolean().optional(),
});

/** The flag's metadata once the operations are applied; refuses paths outside the metadata and results of the wrong type. */
export function patchedMetadata(
  flag: FeatureDocument,
  operations: JsonPatchItem[],
): { description: string | null; type: FeatureType; stale: boolean; impressionData: boolean } {
  for (const [i, op] of operations.entries()) {
    for (const path of [op.path, op.from].filter((p): p is string => p !== undefined)) {
      if (path.includes("/variants")) {
        throw new OperationDeniedError(
          "Changing variants is done via PATCH operation to /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants",
        );
      }
      if (!patchablePaths.has(path)) {
        throw new ValidationError(`Invalid body.${i}.path: "${path}" cannot be patched; allowed: ${[...patchablePaths].join(", ")}`, [
          { path: `body.${i}.path`, message: `Allowed paths: ${[...patchablePaths].join(", ")}` },
        ]);
      }
    }
  }
  const parsed = patchedMetadataSchema.safeParse(applyJsonPatch(metadataOf(flag), operations));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ValidationError(`Invalid patch result: ${problems.join("; ")}`);
  }
  const patched = parsed.data;
  return {
    description: patched.description ?? null,
    type: patched.type,
    stale: patched.stale ?? false,
    impressionData: patched.impressionData ?? false,
  };
}
