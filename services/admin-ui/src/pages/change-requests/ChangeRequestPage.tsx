import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ChangeRequest, ChangeRequestComment } from "@vexil/contracts";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useCurrentUser } from "../../session.js";
import { ChangeDiff } from "./ChangeDiff.js";
import { flagPath, projectPath } from "../../paths.js";

/** Fields the API sends beyond the spec's change request. */
type FullChangeRequest = ChangeRequest & {
  comments?: ChangeRequestComment[];
  schedule?: { scheduledAt: string; status: string; failureReason?: string };
  failureReason?: string;
};

type Move = "submit" | "approve" | "reject" | "apply" | "cancel" | "schedule";

export function ChangeRequestPage() {
  const { projectId, id } = useParams<{ projectId: string; id: string }>();
  const queryClient = useQueryClient();
  const me = useCurrentUser().data;
  const params = { projectId, id: Number(id) };
  const requestKey = [...keys.changeRequests(projectId), Number(id)];
  const request = useQuery({
    queryKey: requestKey,
    queryFn: () => ok(adminApi.changeRequests.get({ params })) as Promise<FullChangeRequest>,
  });
  const [comment, setComment] = useState("");
  const [scheduledAt, setScheduledAt] = useState("");
  const move = useMutation({
    mutationFn: async (move: Move) => {
      const body = comment ? { comment } : {};
      switch (move) {
        case "submit":
          return ok(adminApi.changeRequests.changeState({ params, body: { state: "In review", ...body } }));
        case "approve":
          return ok(adminApi.changeRequests.approve({ params, body }));
        case "reject":
          return ok(adminApi.changeRequests.reject({ params, body }));
        case "apply":
          return ok(adminApi.changeRequests.apply({ params, body }));
        case "cancel":
          return ok(adminApi.changeRequests.cancel({ params, body }));
        case "schedule":
          return ok(
            adminApi.changeRequests.changeState({
              params,
              body: { state: "Scheduled", scheduledAt: new Date(scheduledAt).toISOString(), ...body },
            }),
          );
      }
    },
    onSuccess: async () => {
      setComment("");
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.changeRequests(projectId) }),
        queryClient.invalidateQueries({ queryKey: keys.flagsOf(projectId) }),
      ]);
    },
  });
  const addComment = useMutation({
    mutationFn: () => ok(adminApi.changeRequests.addComment({ params, body: { text: comment } })),
    onSuccess: async () => {
      setComment("");
      await queryClient.invalidateQueries({ queryKey: requestKey });
    },
  });
  const cr = request.data;
  const mine = cr?.createdBy?.id !== undefined && cr.createdBy.id === me?.user.id;
  const open = cr && ["Draft", "In review", "Approved", "Scheduled"].includes(cr.state ?? "");

  return (
    <section>
      <div className="hint">
        <Link href={`${projectPath(projectId)}/change-requests`}>Change requests of {projectId}</Link> /
      </div>
      <ErrorNote error={request.error} />
      {cr && (
        <>
          <div className="page-head">
            <h1>
              {/* The default title repeats the number: show a title only when someone wrote one. */}
              Change request #{cr.id}
              {cr.title && cr.title !== `Change request #${cr.id}` && `: ${cr.title}`}
            </h1>
            <span className="badge">{cr.state}</span>
          </div>
          <p>
            In <strong>{cr.environment}</strong>, by {cr.createdBy?.username ?? "someone"}
            {cr.createdAt && ` on ${new Date(cr.createdAt).toLocaleString()}`}. Needs {cr.minApprovals} approval(s) from someone other than
            its author;{" "}
            {cr.approvals?.length ? `approved by ${cr.approvals.map((a) => a.createdBy.username).join(", ")}` : "no approval yet"}
            {cr.rejections?.length ? `; rejected by ${cr.rejections.map((r) => r.createdBy.username).join(", ")}` : ""}.
          </p>
          {cr.schedule && (
            <p role="status">
              Scheduled for {new Date(cr.schedule.scheduledAt).toLocaleString()} ({cr.schedule.status})
              {cr.schedule.failureReason && `: ${cr.schedule.failureReason}`}
            </p>
          )}
          {cr.features.map((feature) => (
            <div className="card" key={feature.name}>
              <h2>
                <Link href={flagPath(projectId, feature.name)}>{feature.name}</Link>
                {feature.conflict && <span className="badge warn">conflict: {feature.conflict}</span>}
              </h2>
              {feature.changes.map((change) => (
                <ChangeDiff
                  key={change.id}
                  projectId={projectId}
                  feature={feature.name}
                  environment={cr.environment}
                  change={change}
                  live={cr.state !== "Applied"}
                />
              ))}
            </div>
          ))}
          {open && (
            <div className="card">
              <TextField label="Comment (optional)" value={comment} onChange={(e) => setComment(e.target.value)} />
              <div className="actions">
                {cr.state === "Draft" && (
                  <button type="button" className="primary" onClick={() => move.mutate("submit")} disabled={move.isPending}>
                    Submit for review
                  </button>
                )}
                {cr.state === "In review" && !mine && (
                  <>
                    <button type="button" className="primary" onClick={() => move.mutate("approve")} disabled={move.isPending}>
                      Approve
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => confirm("Reject this change request? It cannot be reopened.") && move.mutate("reject")}
                      disabled={move.isPending}
                    >
                      Reject
                    </button>
                  </>
                )}
                {cr.state === "In review" && mine && <span className="hint">You wrote this request: another person must approve it.</span>}
                {cr.state === "Approved" && (
                  <>
                    <button type="button" className="primary" onClick={() => move.mutate("apply")} disabled={move.isPending}>
                      Apply changes
                    </button>
                    <TextField
                      label="Apply at"
                      type="datetime-local"
                      value={scheduledAt}
                      onChange={(e) => setScheduledAt(e.target.value)}
                    />
                    <button type="button" onClick={() => move.mutate("schedule")} disabled={move.isPending || !scheduledAt}>
                      Schedule
                    </button>
                  </>
                )}
                {/* The API lets only the author cancel. */}
                {mine && (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => confirm("Cancel this change request?") && move.mutate("cancel")}
                    disabled={move.isPending}
                  >
                    Cancel request
                  </button>
                )}
                <button type="button" onClick={() => addComment.mutate()} disabled={addComment.isPending || !comment}>
                  Add comment
                </button>
              </div>
              <ErrorNote error={move.error ?? addComment.error} />
            </div>
          )}
          {cr.failureReason && <p className="error-note">Applying failed: {cr.failureReason}</p>}
          {(cr.comments ?? []).length > 0 && (
            <section className="card" aria-labelledby="comments-title">
              <h2 id="comments-title">Comments</h2>
              <ul>
                {cr.comments!.map((c) => (
                  <li key={c.id}>
                    <strong>{c.createdBy.username ?? "someone"}</strong> ({new Date(c.createdAt).toLocaleString()}): {c.text}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </section>
  );
}
