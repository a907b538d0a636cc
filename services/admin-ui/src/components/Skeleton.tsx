/**
 * A grey shape where content is coming, instead of the word "Loading…": the screen keeps its layout
 * while it is read. Screen readers hear "Loading".
 */
export function Skeleton({ shape }: { shape: "page" | "table" }) {
  return <div className={`skeleton skeleton-${shape}`} role="status" aria-label="Loading" />;
}
