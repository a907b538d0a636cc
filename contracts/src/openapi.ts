import { generateOpenApi } from "@ts-rest/open-api";
import { c } from "./common.js";
import type { RouteMetadata } from "./common.js";
import { adminContract } from "./admin.js";
import { authContract } from "./auth.js";
import { feedbackContract } from "./feedback.js";
import { frontendContract } from "./frontend.js";
import { clientContract } from "./client.js";
import { signalsContract } from "./signals.js";
import { ofrepContract } from "./ofrep.js";

type OperationMapper = NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>["operationMapper"]>;
type OperationObject = Parameters<OperationMapper>[0];

type ApiRoutes = {
  admin: typeof adminContract;
  frontend: typeof frontendContract;
  client: typeof clientContract;
  signals: typeof signalsContract;
  feedback: typeof feedbackContract;
  auth: typeof authContract;
  ofrep: typeof ofrepContract;
};
/** Every HTTP surface in one router, as the gateway exposes them (typed by name: TS7056 otherwise). */
export const apiContract: ReturnType<typeof c.router<ApiRoutes, string>> = c.router({
  admin: adminContract,
  frontend: frontendContract,
  client: clientContract,
  signals: signalsContract,
  feedback: feedbackContract,
  auth: authContract,
  ofrep: ofrepContract,
});

/** The OpenAPI 3 document for all surfaces, with the `Authorization` header as the API key. */
export function buildOpenApiDocument(): ReturnType<typeof generateOpenApi> {
  return generateOpenApi(
    apiContract,
    {
      info: {
        title: "Vexil API",
        version: "1",
        description: "Feature-flag management, wire-compatible with the Unleash API.",
      },
      components: {
        securitySchemes: {
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "Authorization",
            description: "An API token; signal endpoints take `Bearer <token>`.",
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    {
      setOperationId: "concatenated-path",
      operationMapper: (operation, route) => {
        const metadata = route.metadata as RouteMetadata | undefined;
        return withRequestExample(withResponseHeaders(withDeepObjectQuery(inMostSpecificTag(operation)), metadata), metadata);
      },
    },
  );
}

/**
 * ts-rest tags an operation with every router it is nested in (`admin`, `projects`); listing it
 * under each would show every admin operation twice, so only the innermost router names it.
 */
function inMostSpecificTag(operation: OperationObject): OperationObject {
  return operation.tags?.length ? { ...operation, tags: operation.tags.slice(-1) } : operation;
}

/** `properties[name]=value` style query objects are deepObject parameters in OpenAPI terms. */
function isObjectSchema(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "object";
}

function withDeepObjectQuery(operation: OperationObject): OperationObject {
  if (!operation.parameters) return operation;
  return {
    ...operation,
    parameters: operation.parameters.map((parameter) =>
      "in" in parameter && parameter.in === "query" && isObjectSchema(parameter.schema)
        ? { ...parameter, style: "deepObject", explode: true }
        : parameter,
    ),
  };
}

/** The route's example request body on its JSON content. */
function withRequestExample(operation: OperationObject, metadata: RouteMetadata | undefined): OperationObject {
  const body = operation.requestBody;
  if (metadata?.requestExample === undefined || !body || !("content" in body)) return operation;
  const content = Object.fromEntries(
    Object.entries(body.content).map(([type, media]) => [type, { ...media, example: metadata.requestExample }]),
  );
  return { ...operation, requestBody: { ...body, content } };
}

/** Response headers the contract cannot express (`location` on a 201), taken from route metadata. */
function withResponseHeaders(operation: OperationObject, metadata: RouteMetadata | undefined): OperationObject {
  const headers = metadata?.responseHeaders;
  if (!headers) return operation;
  const responses = { ...operation.responses };
  for (const [status, byName] of Object.entries(headers)) {
    if (!responses[status]) continue;
    responses[status] = {
      ...responses[status],
      headers: Object.fromEntries(
        Object.entries(byName).map(([name, { description }]) => [name, { description, schema: { type: "string" } }]),
      ),
    };
  }
  return { ...operation, responses };
}
