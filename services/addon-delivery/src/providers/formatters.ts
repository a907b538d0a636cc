import Mustache from "mustache";
import type { AddonConfig, DomainEvent } from "@vexil/contracts";
import { TargetRefused } from "@vexil/outbound";
import { eventMarkdown, featureLink } from "./event-text.js";

export interface FormatContext {
  /** Base URL of the admin UI, for links to flags. */
  uiUrl: string;
  /** Same for every attempt of one (event, addon): receivers dedupe on it. */
  idempotencyKey: string;
}

const defaultDatadogUrl = "https://api.datadoghq.com/api/v1/events";

/** One POST an addon's provider asks for; delivery sends it. */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The HTTP requests that deliver one event to one addon (several for slack: one per channel).
 * Throws TargetRefused for a configuration that can never be sent (bad template or headers).
 */
export function formatDelivery(addon: AddonConfig, event: DomainEvent, ctx: FormatContext): OutboundRequest[] {
  const param = (name: string) => {
    const value = addon.parameters[name];
    return typeof value === "string" && value.trim() !== "" ? value : undefined;
  };
  const baseHeaders = (contentType = "application/json") => ({
    "content-type": contentType,
    "user-agent": "vexil-addon-delivery",
    ...customHeaders(param("customHeaders")),
    "idempotency-key": ctx.idempotencyKey,
    "x-vexil-delivery": ctx.idempotencyKey,
  });
  const url = param("url");
  const text = eventMarkdown(event, ctx.uiUrl);
  const link = featureLink(event, ctx.uiUrl);

  switch (addon.provider) {
    case "webhook": {
      const template = param("bodyTemplate");
      const authorization = param("authorization");
      const body = template ? render(template, event, text) : JSON.stringify(event);
      const headers: Record<string, string> = { ...baseHeaders(param("contentType")), ...(authorization ? { authorization } : {}) };
      return [{ url: requireUrl(url), headers, body }];
    }
    case "slack": {
      const channels = event.tags.filter((t) => t.type === "slack").map((t) => t.value);
      const targets = channels.length > 0 ? channels : [param("defaultChannel") ?? "general"];
      return targets.map((channel) => ({
        url: requireUrl(url),
        headers: {
          ...baseHeaders(),
          "idempotency-key": `${ctx.idempotencyKey}:${channel}`,
          "x-vexil-delivery": `${ctx.idempotencyKey}:${channel}`,
        },
        body: JSON.stringify({
          username: param("username") ?? "Unleash",
          icon_emoji: param("emojiIcon") ?? ":unleash:",
          text,
          channel: `#${channel.replace(/^#/, "")}`,
          attachments: link
            ? [
                {
                  actions: [
                    { name: "featureToggle", text: "Open in Unleash", type: "button", value: "featureToggle", style: "primary", url: link },
                  ],
                },
              ]
            : [],
        }),
      }));
    }
    case "teams":
      return [
        {
          url: requireUrl(url),
          headers: baseHeaders(),
          body: JSON.stringify({
            "@type": "MessageCard",
            "@context": "https://schema.org/extensions",
            themeColor: "0076D7",
            summary: "Message",
            sections: [
              {
                activityTitle: text,
                activitySubtitle: "Unleash notification update",
                facts: [
                  { name: "User", value: event.createdBy },
                  { name: "Action", value: event.type },
                ],
              },
            ],
            potentialAction: link ? [{ "@type": "OpenUri", name: "Go to feature", targets: [{ os: "default", uri: link }] }] : [],
          }),
        },
      ];
    case "datadog": {
      const apiKey = param("apiKey");
      if (!apiKey) throw new TargetRefused("the datadog addon has no apiKey");
      const template = param("bodyTemplate");
      const tags = [`event:${event.type}`, ...event.tags.filter((t) => t.type === "datadog").map((t) => t.value)];
      const sourceTypeName = param("sourceTypeName");
      return [
        {
          url: url ?? defaultDatadogUrl,
          headers: { ...baseHeaders(), "dd-api-key": apiKey },
          body: JSON.stringify({
            title: "Unleash notification update",
            text: template ? render(template, event, text) : `%%% \n ${link ? `${text}\n\n[Open in Unleash](${link})` : text} \n %%% `,
            tags,
            ...(sourceTypeName ? { source_type_name: sourceTypeName } : {}),
          }),
        },
      ];
    }
    default:
      throw new TargetRefused(`unknown provider '${addon.provider}'`);
  }
}

/** Mustache with the fields Unleash templates use: `event`, `eventJson` and `eventMarkdown`. */
function render(template: string, event: DomainEvent, markdown: string): string {
  try {
    return Mustache.render(template, { event, eventJson: JSON.stringify(event), eventMarkdown: markdown });
  } catch (err) {
    throw new TargetRefused(`body template cannot be rendered: ${(err as Error).message}`);
  }
}

function customHeaders(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new TargetRefused("customHeaders is not a JSON object");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new TargetRefused("customHeaders is not a JSON object");
  return Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name.toLowerCase(), String(value)]));
}

function requireUrl(url: string | undefined): string {
  if (!url) throw new TargetRefused("the addon has no url");
  return url;
}
