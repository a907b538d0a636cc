import { useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { adminContract, type EventEntry } from "@vexil/contracts";
import { useCallback, useEffect, useRef } from "react";
import { keys } from "./query-keys.js";
import { setSignInNotice } from "./session.js";

/** What shows an event: the queries to read again once it is committed. */
export function keysShowing(event: Pick<EventEntry, "type" | "project" | "featureName">): QueryKey[] {
  const shown: QueryKey[] = [keys.eventLog];
  if (event.type.startsWith("project")) shown.push(keys.projects);
  if (event.type.startsWith("feature")) shown.push(keys.flagSearch);
  // Group changes and single sign-on (which adds members) show on the groups screen.
  if (event.type.startsWith("group") || event.type.startsWith("user")) shown.push(keys.groups);
  if (event.type.startsWith("setting")) shown.push(keys.samlSettings);
  if (event.type.startsWith("change-request")) shown.push(keys.changeRequestsToReview);
  if (event.project) {
    const project = event.project;
    shown.push(
      keys.flags(project),
      keys.project(project),
      keys.archive(project),
      keys.changeRequests(project),
      keys.projectAccess(project),
    );
    // A change request's events name no flag, yet applying one changes its flags.
    if (event.type.startsWith("change-request")) shown.push(keys.flagsOf(project));
  }
  if (event.featureName) {
    const flag = event.featureName;
    shown.push(keys.flagEvents(flag), keys.flagTags(flag));
    if (event.project) shown.push(keys.flag(event.project, flag));
  }
  return shown;
}

/** Commits come in bursts (a change request applies many); each query is read again once per burst. */
const burstMs = 100;

function invalidateInBursts(queryClient: QueryClient) {
  const pending = new Map<string, QueryKey>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    add(shown: QueryKey[]) {
      for (const key of shown) pending.set(JSON.stringify(key), key);
      timer ??= setTimeout(() => {
        timer = undefined;
        const batch = [...pending.values()];
        pending.clear();
        for (const queryKey of batch) void queryClient.invalidateQueries({ queryKey });
      }, burstMs);
    },
    cancel: () => clearTimeout(timer),
  };
}

/** The longest wait before opening a refused stream again while the session still holds. */
const maxReopenMs = 30_000;

/**
 * One event stream for the signed-in app: each change anyone commits (another person, a script,
 * an SDK-facing service) refreshes the screens that show it, without a reload. A reconnect that
 * could not resume (`reset`, or a stream that had to start over) reads everything shown again.
 *
 * The stream lives as long as the session: the server ends it with `ended` when the session does
 * (signed out elsewhere, password changed, user deleted), and a refused stream (401) is not opened
 * again; both ask who is signed in, which shows the sign-in screen and unmounts this. Returns
 * `close`, for signing out.
 */
export function useLiveUpdates(): () => void {
  const queryClient = useQueryClient();
  const close = useRef<() => void>(() => undefined);
  useEffect(() => {
    const bursts = invalidateInBursts(queryClient);
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let reopenMs = 1_000;
    let stopped = false;
    let connectedBefore = false;
    const stop = () => {
      stopped = true;
      source?.close();
      clearTimeout(reopen);
      bursts.cancel();
    };
    // The server closed the stream for good: open it again later only if the session still holds.
    const closedByServer = async () => {
      source?.close();
      await queryClient.invalidateQueries({ queryKey: keys.currentUser });
      if (stopped || !queryClient.getQueryData(keys.currentUser)) return;
      reopen = setTimeout(open, reopenMs);
      reopenMs = Math.min(reopenMs * 2, maxReopenMs);
    };
    const open = () => {
      const stream = (source = new EventSource(adminContract.events.stream.path));
      stream.onmessage = (message: MessageEvent<string>) => bursts.add(keysShowing(JSON.parse(message.data) as EventEntry));
      stream.addEventListener("connected", (message: MessageEvent<string>) => {
        const { resumed } = JSON.parse(message.data) as { resumed: boolean };
        if (connectedBefore && !resumed) void queryClient.invalidateQueries();
        connectedBefore = true;
        reopenMs = 1_000;
      });
      stream.addEventListener("reset", () => void queryClient.invalidateQueries());
      stream.addEventListener("ended", () => {
        setSignInNotice("Your session ended. Sign in again.");
        void closedByServer();
      });
      // While the stream is CONNECTING the browser retries by itself; CLOSED means it was refused.
      stream.onerror = () => {
        if (stream.readyState === EventSource.CLOSED) void closedByServer();
      };
    };
    open();
    close.current = stop;
    return stop;
  }, [queryClient]);
  return useCallback(() => close.current(), []);
}
