import { never, type Check } from "./constraints.js";
import { resolveContextValue } from "./context.js";
import { inRange, parseIp, parseIpRange } from "./ip.js";
import { rolloutStickinessValue, strategyBucket, strategyGroup } from "./stickiness.js";
import type { ClientStrategy, Context } from "./types.js";

const always: Check = () => true;

// Parameters are strings on the wire, but some servers send numbers.
function param(parameters: Record<string, unknown>, key: string): string {
  const value = parameters[key];
  return value === undefined || value === null ? "" : String(value);
}

function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** The strategy's own rule, without its constraints; undefined for a strategy this engine does not implement. */
export function knownStrategyRule(strategy: ClientStrategy, featureName: string): Check | undefined {
  const parameters: Record<string, unknown> = strategy.parameters ?? {};
  switch (strategy.name) {
    case "default":
      return always;
    case "flexibleRollout":
      return flexibleRollout(parameters, featureName);
    case "userWithId": {
      const userIds = new Set(list(param(parameters, "userIds")));
      return (context) => context.userId !== undefined && userIds.has(context.userId);
    }
    case "remoteAddress":
      return remoteAddress(list(param(parameters, "IPs")));
    case "applicationHostname": {
      // The evaluating process is not the SDK's host, so the hostname travels in the context,
      // as with Unleash Edge and the frontend API.
      const hostNames = new Set(list(param(parameters, "hostNames").toLowerCase()));
      return (context) => {
        const hostname = resolveContextValue(context, "hostname");
        return hostname !== undefined && hostNames.has(hostname.toLowerCase());
      };
    }
    case "gradualRolloutUserId":
      return gradualRollout(parameters, (context) => context.userId);
    case "gradualRolloutSessionId":
      return gradualRollout(parameters, (context) => context.sessionId);
    case "gradualRolloutRandom": {
      const percentage = Number(param(parameters, "percentage"));
      return (_context, options) => percentage >= Math.floor(options.random() * 100) + 1;
    }
    default:
      return undefined;
  }
}

/**
 * How a strategy decides whom it matches: `everyone` (the same for every context), `share` (a
 * rollout below 100 % draws users by hash or at random) or `rule` (constraints, segments, lists
 * of users, addresses or hosts, a sticky field the context must carry, or an unknown strategy).
 */
export type StrategyDecision = "everyone" | "share" | "rule";

export function strategyDecision(strategy: ClientStrategy, constrained: boolean): StrategyDecision {
  const parameters: Record<string, unknown> = strategy.parameters ?? {};
  const percentage = (key: string) => Number(param(parameters, key));
  const share = (value: number) => value > 0 && value < 100;
  switch (strategy.name) {
    case "default":
      return constrained ? "rule" : "everyone";
    case "flexibleRollout": {
      if (share(percentage("rollout"))) return "share";
      // At 100 % the default and random stickiness match everyone; a named field must be in the context.
      const stickiness = param(parameters, "stickiness") || "default";
      const everyone = percentage("rollout") >= 100 && (stickiness === "default" || stickiness === "random");
      return everyone && !constrained ? "everyone" : "rule";
    }
    case "gradualRolloutUserId":
    case "gradualRolloutSessionId":
      return share(percentage("percentage")) ? "share" : "rule";
    case "gradualRolloutRandom":
      if (share(percentage("percentage"))) return "share";
      return percentage("percentage") >= 100 && !constrained ? "everyone" : "rule";
    default:
      return "rule";
  }
}

function flexibleRollout(parameters: Record<string, unknown>, featureName: string): Check {
  const rollout = Number(param(parameters, "rollout"));
  if (!(rollout > 0)) return never;
  const group = strategyGroup(param(parameters, "groupId") || featureName);
  const stickiness = param(parameters, "stickiness") || "default";
  return (context, options) => {
    const id = rolloutStickinessValue(stickiness, context, options);
    return !!id && strategyBucket(id, group) <= rollout;
  };
}

function gradualRollout(parameters: Record<string, unknown>, stickyId: (context: Context) => string | undefined): Check {
  const percentage = Number(param(parameters, "percentage"));
  if (!(percentage > 0)) return never;
  // The legacy strategies hash with an empty group when none is set, unlike flexibleRollout.
  const group = strategyGroup(param(parameters, "groupId"));
  return (context) => {
    const id = stickyId(context);
    return !!id && strategyBucket(id, group) <= percentage;
  };
}

function remoteAddress(entries: string[]): Check {
  const exact = new Set(entries);
  const ranges = entries.map(parseIpRange).filter((range) => range !== undefined);
  return (context) => {
    const text = context.remoteAddress;
    if (!text) return false;
    if (exact.has(text)) return true;
    const address = parseIp(text);
    if (!address) return false;
    for (const range of ranges) {
      if (inRange(address, range)) return true;
    }
    return false;
  };
}
