import express from "express";
import type { Logger } from "@vexil/logger";
import type { Engines, VexilService } from "@vexil/runtime";

export interface SignalIngestDeps {
  engines: Engines;
  logger: Logger;
}

/** Takes signals from external systems at `/api/signal-endpoint/:name`. */
export async function createSignalIngestService(_deps: SignalIngestDeps): Promise<VexilService> {
  const router = express.Router();
  return {
    router,
    readiness: [],
    async start() {},
    async stop() {},
  };
}
