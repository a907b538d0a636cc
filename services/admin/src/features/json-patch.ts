// The package is CommonJS: under node its functions are on the default export only (a namespace
// import finds none of them).
import jsonPatch, { type Operation as JsonPatchOperation } from "fast-json-patch";
import type { JsonPatchItem } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";

/** RFC 6902 on a copy of `doc`; any bad operation refuses the whole patch with a 400. */
export function applyJsonPatch<T>(doc: T, operations: JsonPatchItem[]): T {
  try {
    return jsonPatch.applyPatch(structuredClone(doc), operations as JsonPatchOperation[], true, false).newDocument;
  } catch (err) {
    throw new ValidationError(`Invalid patch: ${(err as Error).message.split("\n")[0]}`);
  }
}
