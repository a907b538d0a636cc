import type { ClientFeature, ClientFeaturesPayload, Segment } from "./types.js";

// Events of the Unleash delta API (`/api/client/delta`).
export type DeltaEvent =
  | { eventId: number; type: "hydration"; features: ClientFeature[]; segments: Segment[] }
  | { eventId: number; type: "feature-updated"; feature: ClientFeature }
  | { eventId: number; type: "feature-removed"; featureName: string; project?: string }
  | { eventId: number; type: "segment-updated"; segment: Segment }
  | { eventId: number; type: "segment-removed"; segmentId: number };

/** Applies events in order and returns a new payload; the input is not modified. */
export function applyDelta(payload: ClientFeaturesPayload, events: readonly DeltaEvent[]): ClientFeaturesPayload {
  // Maps keep insertion order, so an updated feature keeps its place and a new one goes last.
  let features = new Map(payload.features.map((feature) => [feature.name, feature]));
  let segments = new Map((payload.segments ?? []).map((segment) => [segment.id, segment]));
  for (const event of events) {
    switch (event.type) {
      case "hydration":
        features = new Map(event.features.map((feature) => [feature.name, feature]));
        segments = new Map((event.segments ?? []).map((segment) => [segment.id, segment]));
        break;
      case "feature-updated":
        features.set(event.feature.name, event.feature);
        break;
      case "feature-removed":
        features.delete(event.featureName);
        break;
      case "segment-updated":
        segments.set(event.segment.id, event.segment);
        break;
      case "segment-removed":
        segments.delete(event.segmentId);
        break;
      default:
        // Event types newer than this engine are skipped, as the SDKs skip them.
        break;
    }
  }
  return { version: payload.version, features: [...features.values()], segments: [...segments.values()] };
}
