import { describe, expect, it } from "vitest";
import { eventTypes } from "../schemas/event.js";
import { domainEventSchema, eventStreamSubjects, subjectToken, topics } from "./index.js";

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

describe("topic registry", () => {
  it("keeps every subject, kind and parameter as the deployed services use them", () => {
    const registry = Object.fromEntries(Object.entries(topics).map(([name, topic]) => [name, `${topic.kind} ${topic.subject}`]));
    expect(registry).toEqual({
      domainEvents: "event events.>",
      snapshotUpdated: "notice snapshot.updated.*",
      snapshotRepublish: "request snapshot.republish",
      tokensChanged: "notice tokens.changed",
      tokenGrants: "request tokens.grants",
      tokensSeen: "notice tokens.seen",
      signalsReceived: "event signals.received",
      signalEndpointsChanged: "notice signal-endpoints.changed",
      signalEndpoints: "request signal-endpoints.get",
      signalsList: "request signals.list",
      addonsList: "request addons.list",
      addonsChanged: "notice addons.changed",
      addonDeliveries: "request addons.deliveries",
      featuresSeen: "notice metrics.features-seen",
      clientInstancesSeen: "notice metrics.client-instances-seen",
      usageReport: "request metrics.usage",
    });
    expect(eventStreamSubjects).toEqual(["events.>", "signals.received"]);
  });

  it("gives each subject one topic, lower-case and dot-separated", () => {
    const subjects = Object.values(topics).map((topic) => topic.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
    for (const subject of subjects) expect(subject).toMatch(/^[a-z-]+(\.([a-z-]+|\*|>))+$/);
  });

  it("names domain events events.<type>", () => {
    expect(topics.domainEvents.of("feature-updated")).toMatchObject({ kind: "event", subject: "events.feature-updated" });
    expect(topics.domainEvents.of("segment-created").subject).toBe("events.segment-created");
  });

  it("keeps environment names a single subject token", () => {
    expect(topics.snapshotUpdated.of("production")).toMatchObject({ kind: "notice", subject: "snapshot.updated.production" });
    expect(topics.snapshotUpdated.of("eu.prod *>").subject).toBe("snapshot.updated.eu%2Eprod%20%2A%3E");
    expect(decodeURIComponent(subjectToken("eu.prod *>"))).toBe("eu.prod *>");
    expect(() => subjectToken("")).toThrow(/cannot be empty/);
  });

  it("types and validates the notification payloads", () => {
    expect(topics.snapshotUpdated.schema.parse({ environment: "dev", revision: 42 })).toEqual({ environment: "dev", revision: 42 });
    expect(topics.snapshotUpdated.schema.safeParse({ environment: "dev", revision: -1 }).success).toBe(false);
    const followUp = { environment: "dev", revision: 5, previousRevision: 4, changedFeatures: ["a"], segmentsChanged: false };
    expect(topics.snapshotUpdated.schema.parse(followUp)).toEqual(followUp);
    expect(topics.snapshotUpdated.schema.safeParse({ ...followUp, changedFeatures: "a" }).success).toBe(false);

    expect(topics.tokensChanged.schema.safeParse({ count: 3 }).success).toBe(true);
    expect(topics.tokensSeen.schema.safeParse({ digests: [] }).success).toBe(false);
    const grant = { digest: "d", tokenName: "t", type: "frontend", environment: "dev", projects: ["*"], expiresAt: null };
    expect(topics.tokenGrants.reply.parse([grant])).toEqual([grant]);
    expect(topics.tokenGrants.reply.safeParse([{ ...grant, type: "root" }]).success).toBe(false);

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
