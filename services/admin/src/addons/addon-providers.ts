import type { AddonParameterDefinition, AddonProviderDefinition, EventType } from "@vexil/contracts";

const customHeaders = (placeholder: string): AddonParameterDefinition => ({
  name: "customHeaders",
  displayName: "Extra HTTP Headers",
  type: "textfield",
  required: false,
  sensitive: true,
  placeholder,
  description: "(Optional) Extra HTTP headers for each request: a JSON object whose keys and values are all strings.",
});

const featureEvents: EventType[] = [
  "feature-created",
  "feature-updated",
  "feature-archived",
  "feature-revived",
  "feature-stale-on",
  "feature-stale-off",
  "feature-environment-enabled",
  "feature-environment-disabled",
  "feature-strategy-remove",
  "feature-strategy-update",
  "feature-strategy-add",
  "feature-metadata-updated",
];

const changeRequestEvents: EventType[] = [
  "change-added",
  "change-discarded",
  "change-edited",
  "change-request-applied",
  "change-request-approval-added",
  "change-request-approved",
  "change-request-cancelled",
  "change-request-created",
  "change-request-discarded",
  "change-request-rejected",
  "change-request-sent-to-review",
  "change-request-scheduled",
  "change-request-scheduled-application-success",
  "change-request-scheduled-application-failure",
  "change-request-schedule-suspended",
];

const slackTagType = { name: "slack", description: "Slack tag used by the slack addon to pick the channel.", icon: "S" };

/**
 * The providers Vexil delivers to, described as Unleash lists them (names, parameter names, types,
 * required and sensitive flags, event types), so the Unleash UI and scripts read them unchanged.
 */
export const addonProviders: AddonProviderDefinition[] = [
  {
    name: "webhook",
    displayName: "Webhook",
    description: "A Webhook is a generic way to post messages from Vexil to third party services.",
    documentationUrl: "https://docs.getunleash.io/integrate/webhook",
    howTo: "Define a webhook that listens for changes and posts them to a third party service.",
    parameters: [
      {
        name: "url",
        displayName: "Webhook URL",
        type: "url",
        required: true,
        sensitive: true,
        description: "(Required) An HTTP POST is made to this URL for each event; failed deliveries are retried.",
      },
      {
        name: "contentType",
        displayName: "Content-Type",
        type: "text",
        required: false,
        sensitive: false,
        placeholder: "application/json",
        description: '(Optional) The Content-Type header to send. Defaults to "application/json".',
      },
      {
        name: "authorization",
        displayName: "Authorization",
        type: "text",
        required: false,
        sensitive: true,
        placeholder: "",
        description: "(Optional) The Authorization header to send. Not sent if left blank.",
      },
      customHeaders('{\n"ISTIO_USER_KEY": "hunter2",\n"SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}'),
      {
        name: "bodyTemplate",
        displayName: "Body template",
        type: "textfield",
        required: false,
        sensitive: false,
        placeholder:
          '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "featureToggle": "{{event.data.name}}",\n  "timestamp": "{{event.data.createdAt}}",\n  "json": {{{eventJson}}}\n}',
        description:
          "(Optional) A mustache template for the body. Without one the body is the event as JSON. `{{{eventJson}}}` inserts the whole serialized event, `{{eventMarkdown}}` a readable description.",
      },
    ],
    events: [
      ...featureEvents.slice(0, 6),
      "feature-completed",
      ...featureEvents.slice(6),
      "feature-variants-updated",
      "feature-project-change",
      "feature-tagged",
      "feature-untagged",
      ...changeRequestEvents.filter((e) => e !== "change-edited" && e !== "change-request-rejected"),
      "feature-potentially-stale-on",
    ],
  },
  {
    name: "slack",
    displayName: "Slack",
    description: "Allows Unleash to post updates to Slack.",
    documentationUrl: "https://docs.getunleash.io/integrate/slack-app",
    deprecated: "This integration is deprecated. Please try the new App for Slack integration instead.",
    tagTypes: [slackTagType],
    parameters: [
      { name: "url", displayName: "Slack webhook URL", type: "url", required: true, sensitive: true, description: "(Required)" },
      {
        name: "username",
        displayName: "Username",
        type: "text",
        required: false,
        sensitive: false,
        placeholder: "Unleash",
        description: 'The username to post messages as. Defaults to "Unleash".',
      },
      {
        name: "emojiIcon",
        displayName: "Emoji Icon",
        type: "text",
        required: false,
        sensitive: false,
        placeholder: ":unleash:",
        description: 'The emoji icon to post messages with. Defaults to ":unleash:".',
      },
      {
        name: "defaultChannel",
        displayName: "Default channel",
        type: "text",
        required: true,
        sensitive: false,
        description: "(Required) Channel to post to when the flag has no slack tag.",
      },
      customHeaders('{\n  "ISTIO_USER_KEY": "hunter2",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}'),
    ],
    events: [...featureEvents, "feature-variants-updated", "feature-project-change", "feature-potentially-stale-on"],
  },
  {
    name: "teams",
    displayName: "Microsoft Teams",
    description: "Allows Unleash to post updates to Microsoft Teams.",
    documentationUrl: "https://docs.getunleash.io/integrate/teams",
    deprecated: "This integration is deprecated. Please try the new Microsoft Teams - Workflow integration instead.",
    howTo: "The Microsoft Teams integration posts updates when a feature flag changes.",
    parameters: [
      { name: "url", displayName: "Microsoft Teams webhook URL", type: "url", required: true, sensitive: true, description: "(Required)" },
      customHeaders('{\n  "ISTIO_USER_KEY": "hunter2",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOMEVALUE"\n}'),
    ],
    events: [
      ...featureEvents,
      "feature-variants-updated",
      "feature-project-change",
      "feature-potentially-stale-on",
      ...changeRequestEvents,
    ],
  },
  {
    name: "datadog",
    displayName: "Datadog",
    description: "Allows Unleash to post updates to Datadog.",
    documentationUrl: "https://docs.getunleash.io/integrate/datadog",
    howTo: "The Datadog integration posts an event to Datadog when a feature flag changes.",
    tagTypes: [{ name: "datadog", description: "Datadog tags on a flag are sent with its events.", icon: "D" }],
    parameters: [
      {
        name: "url",
        displayName: "Datadog Events URL",
        type: "url",
        required: false,
        sensitive: false,
        description: "Default URL: https://api.datadoghq.com/api/v1/events. Change it if you are not on the US1 site.",
      },
      {
        name: "apiKey",
        displayName: "Datadog API key",
        type: "text",
        required: true,
        sensitive: true,
        placeholder: "j96c23b0f12a6b3434a8d710110bd862",
        description: "(Required) API key to connect to Datadog",
      },
      {
        name: "sourceTypeName",
        displayName: "Datadog Source Type Name",
        type: "text",
        required: false,
        sensitive: false,
        description: "(Optional) source_type_name sent with each Datadog event.",
      },
      customHeaders('{\n  "SOME_CUSTOM_HTTP_HEADER": "SOME_VALUE",\n  "SOME_OTHER_CUSTOM_HTTP_HEADER": "SOME_OTHER_VALUE"\n}'),
      {
        name: "bodyTemplate",
        displayName: "Body template",
        type: "textfield",
        required: false,
        sensitive: false,
        placeholder:
          '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "featureToggle": "{{event.data.name}}",\n  "timestamp": "{{event.data.createdAt}}"\n}',
        description: "(Optional) A mustache template for the event text; by default a readable description.",
      },
    ],
    events: [...featureEvents, "feature-project-change", "feature-environment-variants-updated", "feature-potentially-stale-on"],
  },
];

export function findProvider(name: string): AddonProviderDefinition | undefined {
  return addonProviders.find((p) => p.name === name);
}
