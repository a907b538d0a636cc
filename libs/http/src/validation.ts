import type { AppRouter } from "@ts-rest/core";
import { createExpressEndpoints, type RequestValidationError } from "@ts-rest/express";
import type { IRouter } from "express";
import { ValidationError, type ErrorDetail } from "@vexil/errors";
import type { ZodError } from "zod";

/** The handler map ts-rest expects for a contract (the package does not export the type). */
export type RouterImplementation<T extends AppRouter> = Parameters<typeof createExpressEndpoints<T>>[1];

function issues(where: string, err: ZodError | null): ErrorDetail[] {
  if (!err) return [];
  return err.issues.map((issue) => ({
    path: [where, ...issue.path].join("."),
    message: issue.message,
  }));
}

/** A ts-rest request validation failure, as a ValidationError naming each offending field. */
export function toValidationError(err: RequestValidationError): ValidationError {
  const details = [
    ...issues("params", err.pathParams),
    ...issues("headers", err.headers),
    ...issues("query", err.query),
    ...issues("body", err.body),
  ];
  const first = details[0];
  const message = first ? `Invalid ${first.path}: ${first.message}` : "Request does not match the expected schema";
  return new ValidationError(message, details);
}

/** Mounts a ts-rest router with validation errors in the spec's shape. */
export function mountContract<T extends AppRouter>(target: IRouter, contract: T, implementation: RouterImplementation<T>): void {
  createExpressEndpoints(contract, implementation, target, {
    requestValidationErrorHandler: (err, _req, _res, next) => next(toValidationError(err)),
  });
}
