import express, { type Request, type Router } from "express";
import { readAuthorization } from "@vexil/auth";
import { signalsContract } from "@vexil/contracts";
import { mountContract } from "@vexil/http";
import type { SignalIntake } from "./signal-intake.js";

/** The size the client sent when it said so; otherwise that of the parsed JSON. */
function payloadBytes(req: Request, body: unknown): number {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared >= 0) return declared;
  return body === undefined ? 0 : Buffer.byteLength(JSON.stringify(body));
}

export function signalRoutes({ intake }: { intake: SignalIntake }): Router {
  const router = express.Router();
  mountContract(router, signalsContract, {
    receive: async ({ params, body, req }) => {
      const request = req as unknown as Request;
      await intake.receive({
        endpointName: params.name,
        secret: readAuthorization(request),
        payload: body,
        payloadBytes: payloadBytes(request, body),
      });
      return { status: 202, body: undefined };
    },
  });
  return router;
}
