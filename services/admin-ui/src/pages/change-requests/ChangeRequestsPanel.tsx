import { useQuery } from "@tanstack/react-query";
import { changeRequestStates, type ChangeRequest, type ChangeRequestState } from "@vexil/contracts";
import { useState } from "react";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote, SelectField } from "../../components/forms.js";
import { requestName } from "../../components/ReviewNotice.js";
import { keys } from "../../query-keys.js";
import { changeRequestPath } from "../../paths.js";

const columns = (projectId: string): Column<ChangeRequest>[] => [
  {
    header: "Request",
    cell: (request) => (
      <>
        <Link href={changeRequestPath(projectId, request.id)}>{requestName(request)}</Link>
        <div className="hint">{request.features.map((f) => f.name).join(", ")}</div>
      </>
    ),
    sortBy: (request) => request.id,
  },
  { header: "Environment", cell: (request) => request.environment, sortBy: (request) => request.environment },
  { header: "State", cell: (request) => request.state, sortBy: (request) => request.state ?? "" },
  {
    header: "By",
    cell: (request) => request.createdBy?.username ?? "—",
    sortBy: (request) => request.createdBy?.username ?? "",
    narrowHidden: true,
  },
  {
    header: "Approvals",
    cell: (request) => `${request.approvals?.length ?? 0} of ${request.minApprovals}`,
    sortBy: (request) => request.approvals?.length ?? 0,
    narrowHidden: true,
  },
];

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
      {!requests.error && (
        <DataTable
          label="Change requests"
          noun="change requests"
          columns={columns(projectId)}
          rows={requests.data && list}
          rowKey={(request) => request.id}
          empty="No change requests. Environments that require them (Settings) collect changes here for a second person to approve."
        />
      )}
    </>
  );
}
