import { useQuery } from "@tanstack/react-query";
import { eventTypes, type EventType } from "@vexil/contracts";
import { useDeferredValue, useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { Pager } from "../../components/DataTable.js";
import { ErrorNote, SelectField, TextField } from "../../components/forms.js";
import { flagPath } from "../../paths.js";
import { keys } from "../../query-keys.js";
import { payloadDiff } from "./payload-diff.js";

/** Everything that changed, newest first, filtered on the server. */
export function EventLogPage() {
  const [project, setProject] = useState("");
  const [feature, setFeature] = useState("");
  const [type, setType] = useState<EventType | "">("");
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(50);
  const filters = {
    project: useDeferredValue(project.trim()) || undefined,
    feature: useDeferredValue(feature.trim()) || undefined,
    type: type || undefined,
  };
  const events = useQuery({
    queryKey: [...keys.eventLog, filters, page, pageSize],
    queryFn: () => ok(adminApi.events.search({ query: { ...filters, offset: page * pageSize, limit: pageSize } })),
    placeholderData: (previous) => previous,
  });
  const pager = (position: "top" | "bottom") => (
    <Pager
      page={page}
      pageSize={pageSize}
      total={events.data?.total ?? 0}
      noun="events"
      onPage={setPage}
      onPageSize={(size) => {
        setPageSize(size);
        setPage(0);
      }}
      position={position}
    />
  );
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPage(0);
  };
  return (
    <section>
      <h1>Event log</h1>
      <div className="toolbar">
        <TextField label="Project" value={project} onChange={(e) => filter(setProject)(e.target.value)} />
        <TextField label="Flag" value={feature} onChange={(e) => filter(setFeature)(e.target.value)} />
        <SelectField label="Event type" value={type} onChange={(e) => filter((v) => setType(v as EventType | ""))(e.target.value)}>
          <option value="">Any type</option>
          {eventTypes.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </SelectField>
      </div>
      <ErrorNote error={events.error} />
      {events.data?.total === 0 && <p className="empty">No events match.</p>}
      {(events.data?.events.length ?? 0) > 0 && (
        <>
          {pager("top")}
          <table aria-label="Events">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Project / flag</th>
                <th scope="col">Environment</th>
                <th scope="col">By</th>
                <th scope="col">What changed</th>
              </tr>
            </thead>
            <tbody>
              {events.data!.events.map((event) => (
                <tr key={event.id}>
                  <td>{new Date(event.createdAt).toLocaleString()}</td>
                  <td>{event.type}</td>
                  <td>
                    {event.project && event.featureName ? (
                      <Link href={flagPath(event.project, event.featureName)}>
                        {event.project} / {event.featureName}
                      </Link>
                    ) : (
                      event.project || event.featureName || "—"
                    )}
                  </td>
                  <td>{event.environment ?? "—"}</td>
                  <td>{event.createdBy}</td>
                  <td>
                    <EventChange id={event.id} before={event.preData} after={event.data} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {pager("bottom")}
        </>
      )}
    </section>
  );
}

/** The fields an event changed, before and after, and its whole payload on request. */
function EventChange({ id, before, after }: { id: number; before: unknown; after: unknown }) {
  const changes = payloadDiff(before, after);
  if (before == null && after == null) return "—";
  return (
    <>
      {changes.length > 0 && (
        <ul className="plain-list">
          {changes.slice(0, 5).map((change) => (
            <li key={change.field}>
              <code>{change.field}</code>: {change.before ?? "—"} → {change.after ?? "—"}
            </li>
          ))}
        </ul>
      )}
      <details>
        <summary>Payload of event {id}</summary>
        <pre>{JSON.stringify({ before, after }, null, 2)}</pre>
      </details>
    </>
  );
}
