import { useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { adminContract, type EventEntry } from "@vexil/contracts";
import { useEffect } from "react";
import { keys } from "./queries.js";

/** What shows an event: the queries to read again once it is committed. */
export function keysShowing(event: Pick<EventEntry, "type" | "project" | "featureName">): QueryKey[] {
  const shown: QueryKey[] = [["event-log"]];
  if (event.type.startsWith("project")) shown.push(keys.projects);
  if (event.project) {
    const project = event.project;
    shown.push(keys.flags(project), keys.project(project), keys.archive(project), keys.changeRequests(project));
    // A change request's events name no flag, yet applying one changes its flags.
    if (event.type.startsWith("change-request")) shown.push(["flag", project]);
  }
  if (event.featureName) {
    const flag = event.featureName;
    shown.push(["flag-events", flag], ["flag-tags", flag]);
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

/**
 * One event stream for the signed-in app: each change anyone commits (another person, a script,
 * an SDK-facing service) refreshes the screens that show it, without a reload. A reconnect that
 * could not resume (`reset`, or a stream that had to start over) reads everything shown again.
 */
export function useLiveUpdates(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const source = new EventSource(adminContract.events.stream.path);
    const bursts = invalidateInBursts(queryClient);
    let connectedBefore = false;
    source.onmessage = (message: MessageEvent<string>) => bursts.add(keysShowing(JSON.parse(message.data) as EventEntry));
    source.addEventListener("connected", (message: MessageEvent<string>) => {
      const { resumed } = JSON.parse(message.data) as { resumed: boolean };
      if (connectedBefore && !resumed) void queryClient.invalidateQueries();
      connectedBefore = true;
    });
    source.addEventListener("reset", () => void queryClient.invalidateQueries());
    return () => {
      source.close();
      bursts.cancel();
    };
  }, [queryClient]);
}
