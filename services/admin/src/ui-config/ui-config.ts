import { createRequire } from "node:module";
import type { UiConfig } from "@vexil/contracts";
import type { SegmentLimits } from "../segments/segment-limits.js";

/** The Unleash release whose admin and client API Vexil follows. */
export const unleashApiVersion = "8.2.0";

// package.json sits two levels up from both src/ui-config and dist/ui-config.
const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/**
 * `/api/admin/ui-config`: what tools read to learn what they talk to. It names Vexil and its own
 * version; `unleashApiVersion` says which Unleash API it speaks.
 */
export function uiConfig({ limits }: { limits: SegmentLimits }): UiConfig {
  return {
    name: "Vexil",
    version,
    unleashApiVersion,
    environment: "Vexil",
    // Password sign-in at /auth/simple/login, which is what Unleash calls open-source authentication.
    authenticationType: "open-source",
    baseUriPath: "",
    emailEnabled: false,
    maintenanceMode: false,
    flags: {},
    versionInfo: { current: { oss: version, enterprise: "" }, latest: {}, isLatest: true },
    resourceLimits: { segmentValues: limits.segmentValues, strategySegments: limits.strategySegments },
  };
}
