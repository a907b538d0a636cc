import { describe, expect, it } from "vitest";
import { domainEventSchema, eventTypes, subjects, subjectToken, topics } from "./index.js";

describe("event types", () => {
  it("has Unleash's names, each once", () => {
    expect(new Set(eventTypes).size).toBe(eventTypes.length);
    for (const type of [
      "feature-created",
      "feature-environment-enabled",
      "feature-strategy-add",
      "feature-completed",
      "segment-updated",
      "change-request-applied",
      "public-signup-token-user-added",
      "signal-endpoint-created",
      "actions-deleted",
    ]) {
      expect(eventTypes).toContain(type);
    }
  });
});

describe("domain event payload", () => {
  const event = {
    id: "0b7f6a1e-1111-4c1b-9a3a-2d2f0c6b9e11",
    type: "feature-environment-enabled",
    createdAt: "2024-05-01T12:00:00.000Z",
    createdBy: "admin",
    createdByUserId: 1,
    project: "default",
    environment: "production",
    featureName: "checkout",
  };

  it("fills the nullable fields and tags with defaults", () => {
    expect(domainEventSchema.parse(event)).toEqual({ ...event, data: null, preData: null, tags: [] });
  });

  it("rejects an unknown type and a missing creator by field", () => {
    const result = domainEventSchema.safeParse({ ...event, type: "feature-exploded", createdByUserId: undefined });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual(["type", "createdByUserId"]);
  });
});

describe("subjects and topics", () => {
  it("names domain events events.<type>", () => {
    expect(subjects.domainEvent("feature-updated")).toBe("events.feature-updated");
    expect(topics.domainEvent("segment-created")).toMatchObject({ subject: "events.segment-created" });
    expect(topics.allDomainEvents.subject).toBe("events.>");
  });

  it("keeps environment names a single subject token", () => {
    expect(subjects.snapshotUpdated("production")).toBe("snapshot.updated.production");
    expect(subjects.snapshotUpdated("eu.prod *>")).toBe("snapshot.updated.eu%2Eprod%20%2A%3E");
    expect(decodeURIComponent(subjectToken("eu.prod *>"))).toBe("eu.prod *>");
    expect(() => subjectToken("")).toThrow(/cannot be empty/);
  });

  it("types and validates the notification payloads", () => {
    expect(topics.snapshotUpdated("dev").schema.parse({ environment: "dev", revision: 42 })).toEqual({ environment: "dev", revision: 42 });
    expect(topics.snapshotUpdated("dev").schema.safeParse({ environment: "dev", revision: -1 }).success).toBe(false);
    const followUp = { environment: "dev", revision: 5, previousRevision: 4, changedFeatures: ["a"], segmentsChanged: false };
    expect(topics.snapshotUpdated("dev").schema.parse(followUp)).toEqual(followUp);
    expect(topics.snapshotUpdated("dev").schema.safeParse({ ...followUp, changedFeatures: "a" }).success).toBe(false);

    const change = { kind: "delete", secretHash: "a".repeat(64), tokenName: "t", type: "frontend", environment: "dev", projects: ["*"] };
    expect(topics.tokensChanged.schema.parse(change)).toEqual(change);
    const leaked = topics.tokensChanged.schema.safeParse({ ...change, secretHash: "default:dev.secret" });
    expect(leaked.error?.issues[0].path).toEqual(["secretHash"]);

    const signal = {
      endpointId: 1,
      endpointName: "deploys",
      signalId: 9,
      source: "ci",
      payload: { ok: true },
      createdAt: "2024-05-01T12:00:00Z",
    };
    expect(topics.signalsReceived.schema.parse(signal)).toEqual(signal);
    expect(topics.signalsReceived.subject).toBe("signals.received");
  });
});
