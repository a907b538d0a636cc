import type { FeatureEnvironmentMetrics } from "@vexil/contracts";

/** One line of the chart: an environment (and one application of it, or all of them) hour by hour. */
export interface UsageSeries {
  hours: number[];
  yes: number[];
  no: number[];
}

/** Every hour from the first reported to the last, in seconds (uPlot's time unit), with gaps as zero. */
export function usageSeries(data: FeatureEnvironmentMetrics[], environment: string, appName: string | undefined): UsageSeries {
  const picked = data.filter((m) => m.environment === environment && (appName === undefined || m.appName === appName));
  const byHour = new Map<number, { yes: number; no: number }>();
  for (const m of picked) {
    const hour = Math.floor(Date.parse(m.timestamp) / 3_600_000) * 3600;
    const sum = byHour.get(hour) ?? { yes: 0, no: 0 };
    sum.yes += m.yes;
    sum.no += m.no;
    byHour.set(hour, sum);
  }
  const known = [...byHour.keys()].sort((a, b) => a - b);
  const series: UsageSeries = { hours: [], yes: [], no: [] };
  if (known.length === 0) return series;
  for (let hour = known[0]!; hour <= known[known.length - 1]!; hour += 3600) {
    const sum = byHour.get(hour);
    series.hours.push(hour);
    series.yes.push(sum?.yes ?? 0);
    series.no.push(sum?.no ?? 0);
  }
  return series;
}

/** "440 yes / 140 no in development": an environment's last hour. */
export function usageSentence(yes: number, no: number, environment: string): string {
  return `${yes} yes / ${no} no in ${environment}`;
}

/** The environments and applications that reported anything, for the chart's choices. */
export function reporters(data: FeatureEnvironmentMetrics[]): { environments: string[]; applications: string[] } {
  const environments = new Set<string>();
  const applications = new Set<string>();
  for (const m of data) {
    environments.add(m.environment);
    if (m.appName) applications.add(m.appName);
  }
  return { environments: [...environments].sort(), applications: [...applications].sort() };
}
