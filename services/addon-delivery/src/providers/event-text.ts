import type { DomainEvent } from "@vexil/contracts";

/** Link to the flag in the admin UI, or undefined for events about something other than a flag. */
export function featureLink(event: DomainEvent, uiUrl: string): string | undefined {
  if (!event.featureName || !event.project) return undefined;
  const base = uiUrl.replace(/\/+$/, "");
  return `${base}/projects/${encodeURIComponent(event.project)}/features/${encodeURIComponent(event.featureName)}`;
}

/** A one-line Markdown description of an event, as messages show it. */
export function eventMarkdown(event: DomainEvent, uiUrl: string): string {
  const link = featureLink(event, uiUrl);
  const subject = event.featureName ? `feature flag ${link ? `[${event.featureName}](${link})` : `*${event.featureName}*`}` : undefined;
  const where = [event.project && `in project *${event.project}*`, event.environment && `in environment *${event.environment}*`].filter(
    Boolean,
  );
  return [`*${event.createdBy}*`, `triggered *${event.type}*`, subject && `for ${subject}`, ...where].filter(Boolean).join(" ");
}
