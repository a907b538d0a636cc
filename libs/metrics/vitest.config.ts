import { defineConfig } from "vitest/config";
import { vexilTestConfig } from "../../vitest.shared.js";

export default defineConfig(vexilTestConfig);
