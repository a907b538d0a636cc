import { useQuery } from "@tanstack/react-query";
import { changeRequestStates, type ChangeRequestState } from "@vexil/contracts";
import { useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { changeRequestPath } from "../../paths.js";

/** A project's change requests, newest first, by state. */
export function ChangeRequestsPanel({ projectId }: { projectId: string }) {
  const [state, setState] = useState<ChangeRequestState | "">("");
  const requests = useQuery({
    queryKey: [...keys.changeRequests(projectId), state],
    queryFn: () => ok(adminApi.changeRequests.list({ params: { projectId }, query: state ? { state } : {} })),
  });
  const list = [...(requests.data ?? [])].sort((a, b) => b.id - a.id);
  return (
    <>
      <div className="toolbar">
        <SelectField label="State" value={state} onChange={(e) => setState(e.target.value as ChangeRequestState | "")}>
          <option value="">Any state</option>
          {changeRequestStates.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </SelectField>
      </div>
      <ErrorNote error={requests.error} />
      {requests.data && list.length === 0 && (
        <p className="empty">
          No change requests. Environments that require them (Settings) collect changes here for a second person to approve.
        </p>
      )}
      {list.length > 0 && (
        <table aria-label="Change requests">
          <thead>
            <tr>
              <th scope="col">Request</th>
              <th scope="col">Environment</th>
              <th scope="col">State</th>
              <th scope="col">By</th>
              <th scope="col">Approvals</th>
            </tr>
          </thead>
          <tbody>
            {list.map((request) => (
              <tr key={request.id}>
                <td>
                  <Link href={changeRequestPath(projectId, request.id)}>
                    #{request.id} {request.title}
                  </Link>
                  <div className="hint">{request.features.map((f) => f.name).join(", ")}</div>
                </td>
                <td>{request.environment}</td>
                <td>{request.state}</td>
                <td>{request.createdBy?.username ?? "—"}</td>
                <td>
                  {request.approvals?.length ?? 0} of {request.minApprovals}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
