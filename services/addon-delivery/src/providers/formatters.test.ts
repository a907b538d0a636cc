import { describe, expect, it } from "vitest";
import type { AddonConfig, DomainEvent } from "@vexil/contracts";
import { TargetRefused } from "@vexil/outbound";
import { formatDelivery } from "./formatters.js";

const event: DomainEvent = {
  id: "42",
  type: "feature-created",
  createdAt: "2024-05-01T12:00:00.000Z",
  createdBy: "alice",
  createdByUserId: 7,
  project: "default",
  environment: "production",
  featureName: "new-checkout",
  data: { name: "new-checkout", description: "<b>bold</b>" },
  preData: null,
  tags: [
    { type: "slack", value: "releases" },
    { type: "slack", value: "#ops" },
    { type: "datadog", value: "team:payments" },
  ],
};
const ctx = { uiUrl: "https://flags.example.com/", idempotencyKey: "42:3" };
const addon = (provider: string, parameters: Record<string, string>): AddonConfig => ({
  id: 3,
  provider,
  enabled: true,
  parameters,
  events: ["feature-created"],
  projects: [],
  environments: [],
});

describe("formatDelivery", () => {
  it("webhook: posts the event as JSON with the idempotency key, authorization and custom headers", () => {
    const [request] = formatDelivery(
      addon("webhook", { url: "https://hooks.example.com/x", authorization: "Bearer t", customHeaders: '{"X-Team":"payments"}' }),
      event,
      ctx,
    );
    expect(request.url).toBe("https://hooks.example.com/x");
    expect(JSON.parse(request.body)).toEqual(event);
    expect(request.headers).toMatchObject({
      "content-type": "application/json",
      authorization: "Bearer t",
      "x-team": "payments",
      "idempotency-key": "42:3",
      "x-vexil-delivery": "42:3",
    });
  });

  it("webhook: renders a mustache template with event, eventJson and eventMarkdown", () => {
    const [request] = formatDelivery(
      addon("webhook", {
        url: "https://hooks.example.com/x",
        contentType: "text/plain",
        bodyTemplate:
          '{"type":"{{event.type}}","flag":"{{event.featureName}}","desc":"{{event.data.description}}","raw":{{{eventJson}}},"md":"{{{eventMarkdown}}}"}',
      }),
      event,
      ctx,
    );
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ type: "feature-created", flag: "new-checkout", raw: event });
    // Double braces escape HTML, as mustache does; triple braces do not.
    expect(body.desc).toBe("&lt;b&gt;bold&lt;&#x2F;b&gt;");
    expect(body.md).toContain("[new-checkout](https://flags.example.com/projects/default/features/new-checkout)");
    expect(request.headers["content-type"]).toBe("text/plain");
  });

  it("webhook: refuses an unclosed template and headers that are not a JSON object", () => {
    expect(() => formatDelivery(addon("webhook", { url: "https://h.example.com", bodyTemplate: "{{#event}}" }), event, ctx)).toThrow(
      TargetRefused,
    );
    expect(() => formatDelivery(addon("webhook", { url: "https://h.example.com", customHeaders: "[1]" }), event, ctx)).toThrow(
      /customHeaders/,
    );
  });

  it("slack: one message per slack-tagged channel with a link to the flag", () => {
    const requests = formatDelivery(
      addon("slack", { url: "https://hooks.slack.example/x", defaultChannel: "general", username: "Flags" }),
      event,
      ctx,
    );
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((r) => JSON.parse(r.body));
    expect(first).toMatchObject({ username: "Flags", icon_emoji: ":unleash:", channel: "#releases" });
    expect(second.channel).toBe("#ops");
    expect(first.text).toContain("*alice*");
    expect(first.attachments[0].actions[0].url).toBe("https://flags.example.com/projects/default/features/new-checkout");
    expect(requests[0].headers["idempotency-key"]).toBe("42:3:releases");
  });

  it("slack: the default channel when the flag has no slack tag", () => {
    const [request] = formatDelivery(
      addon("slack", { url: "https://hooks.slack.example/x", defaultChannel: "general" }),
      { ...event, tags: [] },
      ctx,
    );
    expect(JSON.parse(request.body).channel).toBe("#general");
  });

  it("teams: a MessageCard with the actor, the action and a link", () => {
    const [request] = formatDelivery(addon("teams", { url: "https://teams.example/x" }), event, ctx);
    const card = JSON.parse(request.body);
    expect(card).toMatchObject({
      "@type": "MessageCard",
      sections: [
        {
          facts: [
            { name: "User", value: "alice" },
            { name: "Action", value: "feature-created" },
          ],
        },
      ],
    });
    expect(card.potentialAction[0].targets[0].uri).toBe("https://flags.example.com/projects/default/features/new-checkout");
  });

  it("datadog: the events API body with tags, the API key header and the default URL", () => {
    const [request] = formatDelivery(addon("datadog", { apiKey: "dd-key", sourceTypeName: "unleash" }), event, ctx);
    expect(request.url).toBe("https://api.datadoghq.com/api/v1/events");
    expect(request.headers["dd-api-key"]).toBe("dd-key");
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      title: "Unleash notification update",
      tags: ["event:feature-created", "team:payments"],
      source_type_name: "unleash",
    });
    expect(body.text).toContain("new-checkout");
  });

  it("an event about no flag has no link", () => {
    const [request] = formatDelivery(
      addon("teams", { url: "https://teams.example/x" }),
      { ...event, featureName: null, project: null },
      ctx,
    );
    expect(JSON.parse(request.body).potentialAction).toEqual([]);
  });

  it("refuses an unknown provider and a missing url", () => {
    expect(() => formatDelivery(addon("pigeon", {}), event, ctx)).toThrow(/unknown provider/);
    expect(() => formatDelivery(addon("webhook", {}), event, ctx)).toThrow(/no url/);
  });
});
