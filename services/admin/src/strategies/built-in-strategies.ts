import type { StrategyDefinition } from "@vexil/contracts";

const listParameter = (name: string, description: string, required: boolean) => ({ name, type: "list", description, required });

/** The strategy types every Unleash SDK implements; they cannot be edited or deleted. */
export const builtInStrategies: readonly StrategyDefinition[] = [
  {
    name: "flexibleRollout",
    displayName: "Gradual rollout",
    description: "Roll out to a percentage of your userbase, and ensure that the experience is the same for the user on each visit.",
    editable: false,
    deprecated: false,
    title: null,
    parameters: [
      { name: "rollout", type: "percentage", description: "", required: false },
      {
        name: "stickiness",
        type: "string",
        description: "Used define stickiness. Possible values: default, userId, sessionId, random",
        required: true,
      },
      {
        name: "groupId",
        type: "string",
        description: "Used to define a activation groups, which allows you to correlate across feature toggles.",
        required: true,
      },
    ],
  },
  {
    name: "default",
    displayName: "Standard",
    description: 'This strategy turns on / off for your entire userbase. Prefer using "Gradual rollout" strategy (100%=on, 0%=off).',
    editable: false,
    deprecated: false,
    title: null,
    parameters: [],
  },
  {
    name: "userWithId",
    displayName: "UserIDs",
    description: "Enable the feature for a specific set of userIds.",
    editable: false,
    deprecated: false,
    title: null,
    parameters: [listParameter("userIds", "", false)],
  },
  {
    name: "remoteAddress",
    displayName: "IPs",
    description: "Enable the feature for a specific set of IP addresses.",
    editable: false,
    deprecated: false,
    title: null,
    parameters: [listParameter("IPs", "List of IPs to enable the feature toggle for.", true)],
  },
  {
    name: "applicationHostname",
    displayName: "Hosts",
    description: "Enable the feature for a specific set of hostnames.",
    editable: false,
    deprecated: false,
    title: null,
    parameters: [listParameter("hostNames", "List of hostnames to enable the feature toggle for.", false)],
  },
  {
    name: "gradualRolloutRandom",
    displayName: "Randomly activating",
    description: "Randomly activate the feature flag. No stickiness.",
    editable: false,
    deprecated: true,
    title: null,
    parameters: [{ name: "percentage", type: "percentage", description: "", required: false }],
  },
  {
    name: "gradualRolloutSessionId",
    displayName: "Percentage of sessions",
    description: "Gradually activate feature flag. Stickiness based on session id.",
    editable: false,
    deprecated: true,
    title: null,
    parameters: [
      { name: "percentage", type: "percentage", description: "", required: false },
      {
        name: "groupId",
        type: "string",
        description: "Used to define a activation groups, which allows you to correlate across feature toggles.",
        required: true,
      },
    ],
  },
  {
    name: "gradualRolloutUserId",
    displayName: "Percentage of users",
    description: "Gradually activate feature flag for logged in users. Stickiness based on user id",
    editable: false,
    deprecated: true,
    title: null,
    parameters: [
      { name: "percentage", type: "percentage", description: "", required: false },
      {
        name: "groupId",
        type: "string",
        description: "Used to define a activation groups, which allows you to correlate across feature toggles.",
        required: true,
      },
    ],
  },
];
