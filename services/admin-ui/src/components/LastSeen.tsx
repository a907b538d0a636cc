import type { Feature } from "@vexil/contracts";

/** "2 min ago", "3 h ago", "5 days ago": how long since a time, in whole units. */
export function timeAgo(at: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return `${days} ${days === 1 ? "day" : "days"} ago`;
}

/** When an SDK last reported something, with the exact time on hover and for screen readers. */
export function LastSeen({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="hint">never</span>;
  const time = new Date(at);
  return (
    <time dateTime={at} title={time.toLocaleString()}>
      {timeAgo(time, new Date())}
    </time>
  );
}

/** When any SDK last reported the flag, in any environment. */
export function flagLastSeen(flag: Feature): string | null {
  const times = [flag.lastSeenAt, ...(flag.environments ?? []).map((env) => env.lastSeenAt)].filter((t): t is string => !!t);
  return times.length === 0 ? null : times.reduce((latest, t) => (t > latest ? t : latest));
}
