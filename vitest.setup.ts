/**
 * `vi.waitFor` gives up after 1 s by default, and on a loaded machine a hand-off between timers,
 * streams and stores can take longer than that with nothing wrong. Every suite waits up to 10 s
 * unless the call says otherwise; a real failure still fails, only later.
 */
import { vi } from "vitest";

const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback, options) =>
  waitFor(callback, typeof options === "number" ? { timeout: options } : { timeout: 10_000, ...options })) as typeof vi.waitFor;
