import path from "node:path";
import type { ViteUserConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources under the "vexil-source" export condition,
// so tests never need a prior build.
export const vexilTestConfig: ViteUserConfig = {
  resolve: { conditions: ["vexil-source"] },
  ssr: { resolve: { conditions: ["vexil-source"], externalConditions: ["vexil-source"] } },
  test: {
    testTimeout: 20_000,
    setupFiles: [path.join(__dirname, "vitest.setup.ts")],
    hookTimeout: 30_000,
    exclude: ["**/node_modules/**", "**/dist/**"],
  },
};
