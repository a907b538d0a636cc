import { randomUUID } from "node:crypto";

export interface ErrorDetail {
  path?: string;
  message: string;
}

/** The error body every surface answers with: `{id, name, message, details?}`. */
export interface ErrorBody {
  id: string;
  name: string;
  message: string;
  details?: ErrorDetail[];
}

/**
 * Root of the error hierarchy. Domain code throws these; one middleware maps them to a status and
 * the spec's body. `name` is the spec's error name, letter for letter.
 */
export abstract class VexilError extends Error {
  readonly id = randomUUID();
  abstract readonly status: number;
  readonly details?: ErrorDetail[];

  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.details = details;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { id: this.id, name: this.name, message: this.message };
    if (this.details?.length) body.details = this.details;
    return body;
  }
}

// Each subclass names itself explicitly: class names can be mangled by bundlers, error names cannot.
export class ValidationError extends VexilError {
  override readonly name = "ValidationError";
  readonly status = 400;
}
export class AuthenticationRequired extends VexilError {
  override readonly name = "AuthenticationRequired";
  readonly status = 401;
}
/** 401 for a wrong current password when people change their own (Unleash's PasswordMismatch). */
export class PasswordMismatch extends VexilError {
  override readonly name = "PasswordMismatch";
  readonly status = 401;
}
export class NoAccessError extends VexilError {
  override readonly name = "NoAccessError";
  readonly status = 403;
  constructor(permission: string, environment?: string) {
    super(
      environment
        ? `You don't have the required permission: ${permission} in environment ${environment}`
        : `You don't have the required permission: ${permission}`,
    );
    this.permission = permission;
    this.environment = environment;
  }
  readonly permission: string;
  readonly environment?: string;
}
/**
 * 403 for an operation that no permission allows where it was asked (Unleash's OperationDeniedError,
 * such as changing variants through a flag's patch), named as the spec names every 403.
 */
export class OperationDeniedError extends VexilError {
  override readonly name = "NoAccessError";
  readonly status = 403;
}
export class NotFoundError extends VexilError {
  override readonly name = "NotFoundError";
  readonly status = 404;
}
export class NameExistsError extends VexilError {
  override readonly name = "NameExistsError";
  readonly status = 409;
}
export class RequestTimeout extends VexilError {
  override readonly name = "RequestTimeout";
  readonly status = 408;
}
export class UriTooLong extends VexilError {
  override readonly name = "UriTooLong";
  readonly status = 414;
}
export class HeadersTooLarge extends VexilError {
  override readonly name = "HeadersTooLarge";
  readonly status = 431;
}
export class ContentTooLarge extends VexilError {
  override readonly name = "ContentTooLarge";
  readonly status = 413;
}
export class ContentTypeerror extends VexilError {
  override readonly name = "ContentTypeerror";
  readonly status = 415;
}
export class TooManyRequests extends VexilError {
  override readonly name = "TooManyRequests";
  readonly status = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
export class NotReady extends VexilError {
  override readonly name = "NotReady";
  readonly status = 503;
}
/** The process is up but at a limit it keeps to stay up (e.g. its open streams): try again later. */
export class ServiceUnavailable extends VexilError {
  override readonly name = "ServiceUnavailable";
  readonly status = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
/** Wraps anything that is not a VexilError; its message never reaches the client. */
export class InternalError extends VexilError {
  override readonly name = "InternalError";
  readonly status = 500;
}

export function isVexilError(err: unknown): err is VexilError {
  return err instanceof VexilError;
}

/** Maps any thrown value to a VexilError, hiding the details of unexpected ones. */
export function toVexilError(err: unknown): VexilError {
  if (isVexilError(err)) return err;
  return new InternalError("Unexpected error; see the server log with this id");
}
