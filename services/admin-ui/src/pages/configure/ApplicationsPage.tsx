import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, TextField } from "../../components/forms.js";

/** The applications whose SDKs have registered or sent metrics. */
export function ApplicationsPage() {
  const [text, setText] = useState("");
  const query = useDeferredValue(text.trim());
  const apps = useQuery({
    queryKey: ["applications", query],
    queryFn: () => ok(adminApi.applications.list({ query: { query: query || undefined, limit: 100 } })),
    placeholderData: (previous) => previous,
  });
  return (
    <section>
      <h1>Applications</h1>
      <div className="toolbar">
        <TextField label="Search applications" type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <ErrorNote error={apps.error} />
      {apps.data?.total === 0 && (
        <p className="empty">No application has connected yet. SDKs appear here once they register with a client token.</p>
      )}
      {(apps.data?.applications.length ?? 0) > 0 && (
        <table aria-label="Applications">
          <thead>
            <tr>
              <th scope="col">Application</th>
              <th scope="col">Used in</th>
              <th scope="col">Strategies it knows</th>
              <th scope="col">First seen</th>
            </tr>
          </thead>
          <tbody>
            {apps.data!.applications.map((app) => (
              <tr key={app.appName}>
                <td>
                  {app.appName}
                  {app.description && <div className="hint">{app.description}</div>}
                </td>
                <td>{app.usage.map((u) => `${u.project} (${u.environments.join(", ")})`).join("; ") || "—"}</td>
                <td>{app.strategies.join(", ") || "—"}</td>
                <td>{new Date(app.createdAt).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
