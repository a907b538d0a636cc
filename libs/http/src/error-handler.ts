import type { ErrorRequestHandler, RequestHandler } from "express";
import { NotFoundError, ValidationError, toVexilError } from "@vexil/errors";
import type { Logger } from "@vexil/logger";

export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`Could not find ${req.method} ${req.path}`));
};

/** The one place errors become responses: spec body, right status, no stack to the client. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // express refuses a path whose percent-encoding does not decode (`/features/%E0%A4%A`) with a URIError.
    const error = err instanceof URIError ? new ValidationError("The path has malformed percent-encoding") : toVexilError(err);
    if (error.status >= 500) {
      logger.error({ err, errorId: error.id, reqId: req.headers["x-request-id"] }, "request failed");
    } else {
      logger.debug({ errorName: error.name, message: error.message }, "request refused");
    }
    if (res.headersSent) return res.end();
    if ("retryAfterSeconds" in error) res.setHeader("Retry-After", String(error.retryAfterSeconds));
    res.status(error.status).json(error.toBody());
  };
}
