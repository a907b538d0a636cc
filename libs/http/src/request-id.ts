import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";

const header = "x-request-id";
const acceptable = /^[\w.:-]{1,128}$/;

/** Keeps the caller's (or gateway's) request id, or gives the request one, and answers with it. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): void {
  const incoming = req.headers[header];
  const id = typeof incoming === "string" && acceptable.test(incoming) ? incoming : randomUUID();
  req.headers[header] = id;
  res.setHeader(header, id);
}

/** So one id follows a request across services. */
export const requestId: RequestHandler = (req, res, next) => {
  assignRequestId(req, res);
  next();
};
