import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

const header = "x-request-id";
const acceptable = /^[\w.:-]{1,128}$/;

/** Keeps the caller's (or gateway's) request id so one id follows a request across services. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers[header];
  const id = typeof incoming === "string" && acceptable.test(incoming) ? incoming : randomUUID();
  req.headers[header] = id;
  res.setHeader(header, id);
  next();
};
