import { useQuery } from "@tanstack/react-query";
import type { ChangeRequest, CurrentUser } from "@vexil/contracts";
import { Link } from "wouter";
import { adminApi, ok } from "../api.js";
import { changeRequestPath } from "../paths.js";
import { keys } from "../query-keys.js";

/** How many waiting requests the notice names; the rest are counted. */
const named = 3;

/** Whether the request waits for this person: in review, someone else's, and not yet approved or rejected by them. */
export function waitsFor(request: ChangeRequest, userId: number): boolean {
  const reviewedByMe = [...(request.approvals ?? []), ...(request.rejections ?? [])].some((review) => review.createdBy.id === userId);
  return request.state === "In review" && request.createdBy?.id !== userId && !reviewedByMe;
}

/** "#3 Turn on checkout" (the default title only repeats the number). */
export function requestName(request: ChangeRequest): string {
  return request.title && request.title !== `Change request #${request.id}` ? `#${request.id} ${request.title}` : `#${request.id}`;
}

/**
 * Tells a reviewer, on every screen, that change requests of any project wait for their review, with
 * a link to each. Read again when a change request changes anywhere (the live updates).
 */
export function ReviewNotice({ me }: { me: CurrentUser }) {
  const userId = me.user.id;
  const waiting = useQuery({
    queryKey: keys.changeRequestsToReview,
    queryFn: () => ok(adminApi.changeRequests.search({ query: { state: "In review", offset: 0, limit: 100 } })),
    // A token's session is no person: nothing waits for it.
    enabled: userId !== undefined,
    select: (found) => found.changeRequests.filter((request) => waitsFor(request, userId!)),
  });
  const requests = waiting.data ?? [];
  if (requests.length === 0) return null;
  return (
    <div className="banner" role="status">
      {requests.length === 1 ? "A change request waits" : `${requests.length} change requests wait`} for your review:{" "}
      {requests.slice(0, named).map((request, i) => (
        <span key={`${request.project}/${request.id}`}>
          {i > 0 && ", "}
          <Link href={changeRequestPath(request.project, request.id)}>
            {requestName(request)} in {request.project} ({request.environment})
          </Link>
        </span>
      ))}
      {requests.length > named && ` and ${requests.length - named} more`}.
    </div>
  );
}
