import { defineConfig } from "vitest/config";
import { vexilTestConfig } from "../vitest.shared.js";

// The end-to-end files mostly wait on child processes (a start takes seconds, longer on a loaded
// machine), so three run side by side even on two cores; the timeouts allow for a loaded machine,
// including `expect.poll` (a browser or a child process may take seconds to show a change).
export default defineConfig({
  ...vexilTestConfig,
  test: {
    ...vexilTestConfig.test,
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    expect: { poll: { timeout: 15_000, interval: 50 } },
  },
});
