import { eventTypes, maskedParameterValue, type AddonProviderDefinition, type AddonRequest, type ErrorDetail } from "@vexil/contracts";
import { ValidationError } from "@vexil/errors";
import { findProvider } from "./addon-providers.js";
import { targetUrlProblem } from "@vexil/outbound";

const knownEventTypes = new Set<string>(eventTypes);

export interface ValidAddon {
  provider: AddonProviderDefinition;
  parameters: Record<string, string>;
}

/**
 * Checks an addon request against its provider and returns the parameters to store. A sensitive
 * parameter sent back as the mask keeps the value in `stored` (an update); every problem found is
 * reported at once, each naming its field.
 */
export function validateAddon(
  input: AddonRequest,
  { stored, allowPrivateUrls }: { stored?: Record<string, string>; allowPrivateUrls: boolean },
): ValidAddon {
  const provider = findProvider(input.provider);
  if (!provider) {
    throw new ValidationError(`Unknown addon provider '${input.provider}'`, [
      { path: "body.provider", message: `Unknown provider '${input.provider}'` },
    ]);
  }
  const problems: ErrorDetail[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });

  const definitions = new Map(provider.parameters.map((p) => [p.name, p]));
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.parameters)) {
    const definition = definitions.get(name);
    if (!definition) {
      problem(`body.parameters.${name}`, `Unknown parameter '${name}' for provider ${provider.name}`);
    } else if (typeof value !== "string") {
      problem(`body.parameters.${name}`, `Parameter '${name}' must be a string`);
    } else if (definition.sensitive && value === maskedParameterValue && stored?.[name] !== undefined) {
      parameters[name] = stored[name];
    } else if (value.trim() !== "") {
      parameters[name] = value;
    }
  }

  for (const definition of provider.parameters) {
    const value = parameters[definition.name];
    const path = `body.parameters.${definition.name}`;
    if (value === undefined) {
      if (definition.required && !problems.some((p) => p.path === path)) {
        problem(path, `Missing required parameter '${definition.name}' for provider ${provider.name}`);
      }
      continue;
    }
    if (value === maskedParameterValue) {
      problem(path, `Parameter '${definition.name}' is the mask '${maskedParameterValue}' but no value is stored to keep`);
      continue;
    }
    if (definition.type === "url") {
      const urlProblem = targetUrlProblem(value, { allowPrivate: allowPrivateUrls });
      if (urlProblem) problem(path, `Parameter '${definition.name}' ${urlProblem}`);
    }
    if (definition.name === "customHeaders") {
      const headersProblem = customHeadersProblem(value);
      if (headersProblem) problem(path, `Parameter 'customHeaders' ${headersProblem}`);
    }
  }

  input.events.forEach((event, i) => {
    if (!knownEventTypes.has(event)) problem(`body.events.${i}`, `Unknown event type '${event}'`);
  });

  if (problems.length > 0) throw new ValidationError(problems[0].message, problems);
  return { provider, parameters };
}

/** Custom headers must be a JSON object of string values, as the delivery sends them verbatim. */
function customHeadersProblem(raw: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return "must be a JSON object";
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "must be a JSON object";
  const bad = Object.entries(parsed).find(([name, value]) => typeof value !== "string" || !/^[!#$%&'*+.^_`|~\w-]+$/.test(name));
  return bad ? `has an invalid header '${bad[0]}': names must be header tokens and values strings` : undefined;
}

/** Whether a provider's parameter holds a secret: masked in answers, sealed in the store. */
export function sensitiveParameter(provider: string): (name: string) => boolean {
  const definition = findProvider(provider);
  // A provider no longer known cannot say which values are secret: all of them are treated as such.
  return (name) => definition?.parameters.find((p) => p.name === name)?.sensitive ?? !definition;
}

/** Stored parameters as responses show them: sensitive values replaced by the mask. */
export function maskParameters(provider: string, parameters: Record<string, string>): Record<string, string> {
  const isSensitive = sensitiveParameter(provider);
  return Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, isSensitive(name) ? maskedParameterValue : value]));
}
