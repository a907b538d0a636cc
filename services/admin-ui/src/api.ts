import { initClient, tsRestFetchApi, type ApiFetcher } from "@ts-rest/core";
import { adminContract, authContract, type ErrorBody } from "@vexil/contracts";

/**
 * Every change declares a JSON body, an empty one included (switching a flag on, marking it stale):
 * with the session cookie the server takes nothing else, which is what keeps another site's forms out.
 */
const fetchApi: ApiFetcher = (args) =>
  tsRestFetchApi(
    args.method === "GET" || args.headers["content-type"]
      ? args
      : { ...args, headers: { ...args.headers, "content-type": "application/json" } },
  );

// Relative URLs: the UI is served by the gateway it talks to, and the session cookie rides along.
const clientArgs = {
  baseUrl: "",
  credentials: "same-origin",
  validateResponse: false,
  throwOnUnknownStatus: false,
  api: fetchApi,
} as const;

export const adminApi = initClient(adminContract, clientArgs);
export const authApi = initClient(authContract, clientArgs);

/** An error answer of the API, kept in its own words so the screen can show them next to the cause. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
    this.name = body.name;
  }

  /** The message the API gave for one body field of a 400 (`details[].path` is `body.<field>...`), if any. */
  forField(field: string): string | undefined {
    const about = (path: string) => path === field || path.startsWith(`${field}.`);
    return this.body.details?.find((detail) => detail.path !== undefined && about(detail.path.replace(/^body\./, "")))?.message;
  }
}

type SuccessStatus = 200 | 201 | 202 | 204;

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === "object" && body !== null && typeof (body as ErrorBody).message === "string";
}

/** Awaits a client call and returns the body of a success, or throws an ApiError with the API's words. */
export async function ok<R extends { status: number; body: unknown }>(
  request: Promise<R>,
): Promise<Extract<R, { status: SuccessStatus }>["body"]> {
  const response = await request;
  if (response.status >= 200 && response.status < 300) return response.body as Extract<R, { status: SuccessStatus }>["body"];
  const body = isErrorBody(response.body)
    ? response.body
    : { id: "", name: `HTTP ${response.status}`, message: `The server answered ${response.status}` };
  throw new ApiError(response.status, body);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
