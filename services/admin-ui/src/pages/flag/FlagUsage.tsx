import { useQuery } from "@tanstack/react-query";
import type { Feature } from "@vexil/contracts";
import { lazy, Suspense, useMemo, useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { LastSeen } from "../../components/LastSeen.js";
import { keys } from "../../query-keys.js";
import { reporters, usageSentence, usageSeries } from "./usage.js";

// The chart library is loaded with the first chart, not with the flag page.
const UsageChart = lazy(() => import("./UsageChart.js"));

/** SDKs report every minute or so; the live updates carry changes, not counts, so the panel asks again. */
const usageRefreshMs = 30_000;

/** What the SDKs report for the flag: the last hour per environment, and each hour of the last day as a chart. */
export function FlagUsage({ flag, environments }: { flag: Feature; environments: string[] }) {
  const summary = useQuery({
    queryKey: [...keys.flagUsage(flag.name), "summary"],
    queryFn: () => ok(adminApi.usageMetrics.summary({ params: { name: flag.name } })),
    refetchInterval: usageRefreshMs,
  });
  const raw = useQuery({
    queryKey: [...keys.flagUsage(flag.name), "raw"],
    queryFn: () => ok(adminApi.usageMetrics.raw({ params: { name: flag.name }, query: { hoursBack: 24 } })),
    refetchInterval: usageRefreshMs,
  });
  const lastHour = new Map(summary.data?.lastHourUsage.map((m) => [m.environment, m]));
  const seenIn = new Map(flag.environments?.map((env) => [env.name, env.lastSeenAt]));
  const reported = useMemo(() => reporters(raw.data?.data ?? []), [raw.data]);
  const [environment, setEnvironment] = useState<string>();
  const [application, setApplication] = useState("");
  const shownEnvironment = environment ?? reported.environments[0];
  const series = useMemo(
    () => (shownEnvironment ? usageSeries(raw.data?.data ?? [], shownEnvironment, application || undefined) : undefined),
    [raw.data, shownEnvironment, application],
  );
  return (
    <section className="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <ErrorNote error={summary.error ?? raw.error} />
      <ul className="usage-summary">
        {environments.map((env) => {
          const hour = lastHour.get(env);
          return (
            <li key={env}>
              <strong>{usageSentence(hour?.yes ?? 0, hour?.no ?? 0, env)}</strong> in the last hour, last seen{" "}
              <LastSeen at={seenIn.get(env)} />
            </li>
          );
        })}
      </ul>
      {summary.data && summary.data.seenApplications.length > 0 && (
        <p className="hint">Reported by {summary.data.seenApplications.join(", ")}</p>
      )}
      {raw.data && reported.environments.length === 0 && <p className="hint">No SDK has reported this flag in the last 24 hours.</p>}
      {series && shownEnvironment && (
        <>
          <div className="row">
            <SelectField label="Environment" value={shownEnvironment} onChange={(e) => setEnvironment(e.target.value)}>
              {reported.environments.map((env) => (
                <option key={env}>{env}</option>
              ))}
            </SelectField>
            <SelectField label="Application" value={application} onChange={(e) => setApplication(e.target.value)}>
              <option value="">All applications</option>
              {reported.applications.map((app) => (
                <option key={app}>{app}</option>
              ))}
            </SelectField>
          </div>
          <Suspense fallback={<div className="usage-chart skeleton" aria-hidden="true" />}>
            <UsageChart
              series={series}
              label={`Evaluations per hour in ${shownEnvironment}${application ? ` by ${application}` : ""}: yes in green, no in red`}
            />
          </Suspense>
          <details>
            <summary>The numbers per hour</summary>
            <table aria-label={`Evaluations per hour in ${shownEnvironment}`}>
              <thead>
                <tr>
                  <th scope="col">Hour</th>
                  <th scope="col" className="number">
                    Yes
                  </th>
                  <th scope="col" className="number">
                    No
                  </th>
                </tr>
              </thead>
              <tbody>
                {series.hours.map((hour, i) => (
                  <tr key={hour}>
                    <td>{new Date(hour * 1000).toLocaleString()}</td>
                    <td className="number">{series.yes[i]}</td>
                    <td className="number">{series.no[i]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
