import react from "@vitejs/plugin-react";
import { defineConfig, mergeConfig } from "vitest/config";
import { vexilTestConfig } from "../../vitest.shared.js";

// Unit tests of the UI's hooks and components, rendered in jsdom with Testing Library.
export default mergeConfig(
  vexilTestConfig,
  defineConfig({
    plugins: [react()],
    test: { environment: "jsdom", include: ["src/**/*.test.{ts,tsx}"], setupFiles: ["src/test-setup.ts"] },
  }),
);
