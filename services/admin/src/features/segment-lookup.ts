import type { StoreEngine } from "@vexil/store";
import type { SegmentDocument } from "./feature-model.js";
import type { SegmentLookup } from "./feature-service.js";

/**
 * Which segment ids exist, read from the segments collection the segment slice writes. Kept as a
 * port so the segment service can answer instead once it offers a lookup.
 */
export function createSegmentLookup(engine: StoreEngine): SegmentLookup {
  const segments = engine.collection<SegmentDocument>("segments");
  return {
    async missing(ids) {
      if (ids.length === 0) return [];
      const found = await segments.find({ _id: { $in: [...ids] } }, { projection: { _id: 1 } });
      const existing = new Set(found.map((s) => s._id));
      return [...new Set(ids)].filter((id) => !existing.has(id));
    },
  };
}
