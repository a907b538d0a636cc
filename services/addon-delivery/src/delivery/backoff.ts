/**
 * Delay before the attempt after the n-th failure: exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (half fixed, half random) so retries from many deliveries spread out.
 */
export function retryDelay(failedAttempt: number, { baseMs, maxMs }: { baseMs: number; maxMs: number }, random = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}
