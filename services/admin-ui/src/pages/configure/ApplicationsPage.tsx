import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

type Application = Awaited<ReturnType<typeof listApplications>>["applications"][number];

const listApplications = (query: string) => ok(adminApi.applications.list({ query: { query: query || undefined, limit: 100 } }));

const columns: Column<Application>[] = [
  {
    header: "Application",
    sortBy: (app) => app.appName,
    cell: (app) => (
      <>
        {app.appName}
        {app.description && <div className="hint">{app.description}</div>}
      </>
    ),
  },
  { header: "Used in", cell: (app) => app.usage.map((u) => `${u.project} (${u.environments.join(", ")})`).join("; ") || "—" },
  { header: "Strategies it knows", cell: (app) => app.strategies.join(", ") || "—" },
  { header: "First seen", sortBy: (app) => app.createdAt, cell: (app) => new Date(app.createdAt).toLocaleString() },
];

/** The applications whose SDKs have registered or sent metrics. */
export function ApplicationsPage() {
  const [text, setText] = useState("");
  const query = useDeferredValue(text.trim());
  const apps = useQuery({
    queryKey: [...keys.applications, query],
    queryFn: () => listApplications(query),
    placeholderData: (previous) => previous,
  });
  return (
    <section>
      <h1>Applications</h1>
      <div className="toolbar">
        <TextField label="Search applications" type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <ErrorNote error={apps.error} />
      {!apps.error && (
        <DataTable
          label="Applications"
          noun="applications"
          columns={columns}
          rows={apps.data?.applications}
          rowKey={(app) => app.appName}
          busy={apps.isFetching}
          empty={
            query ? "No application matches." : "No application has connected yet. SDKs appear here once they register with a client token."
          }
        />
      )}
    </section>
  );
}
