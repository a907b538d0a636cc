import { useQuery } from "@tanstack/react-query";
import { eventTypes, type EventType } from "@vexil/contracts";
import { useDeferredValue, useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, SelectField, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

const pageSize = 50;

/** Everything that changed, newest first, filtered on the server. */
export function EventLogPage() {
  const [project, setProject] = useState("");
  const [feature, setFeature] = useState("");
  const [type, setType] = useState<EventType | "">("");
  const [page, setPage] = useState(0);
  const filters = {
    project: useDeferredValue(project.trim()) || undefined,
    feature: useDeferredValue(feature.trim()) || undefined,
    type: type || undefined,
  };
  const events = useQuery({
    queryKey: [...keys.eventLog, filters, page],
    queryFn: () => ok(adminApi.events.search({ query: { ...filters, offset: page * pageSize, limit: pageSize } })),
    placeholderData: (previous) => previous,
  });
  const pages = events.data ? Math.max(1, Math.ceil(events.data.total / pageSize)) : 1;
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
          <table aria-label="Events">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Project / flag</th>
                <th scope="col">Environment</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {events.data!.events.map((event) => (
                <tr key={event.id}>
                  <td>{new Date(event.createdAt).toLocaleString()}</td>
                  <td>{event.type}</td>
                  <td>{[event.project, event.featureName].filter(Boolean).join(" / ") || "—"}</td>
                  <td>{event.environment ?? "—"}</td>
                  <td>{event.createdBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="pager" role="group" aria-label="Pages">
            <button type="button" onClick={() => setPage(page - 1)} disabled={page === 0}>
              Previous
            </button>
            <span>
              Page {page + 1} of {pages} · {events.data!.total} events
            </span>
            <button type="button" onClick={() => setPage(page + 1)} disabled={page + 1 >= pages}>
              Next
            </button>
          </div>
        </>
      )}
    </section>
  );
}
