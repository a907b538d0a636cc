import { z } from "zod";
import { c, errorBodySchema, routerOptions } from "./common.js";
import {
  ofrepBulkEvaluationFailureSchema,
  ofrepBulkEvaluationSuccessSchema,
  ofrepEvaluationFailureSchema,
  ofrepEvaluationRequestSchema,
  ofrepEvaluationSuccessSchema,
  ofrepFlagNotFoundSchema,
  ofrepGeneralErrorSchema,
} from "./schemas/index.js";

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0, open-feature/protocol
 * `service/openapi.yaml`): the two core operations, with the protocol's bodies and error codes.
 */

const exampleContext = { context: { targetingKey: "user-123", email: "user@example.com", plan: "premium", country: "CA" } };

export const ofrepContract = c.router(
  {
    evaluateFlag: {
      method: "POST",
      path: "/evaluate/flags/:key",
      summary: "Evaluate one flag (OFREP)",
      description:
        "OpenFeature Remote Evaluation Protocol, for server-side OpenFeature providers (`@openfeature/ofrep-provider`). " +
        "Authorized by a client or frontend token (`Authorization: Bearer <token>` or `X-API-Key: <token>`); the token's " +
        "environment and projects apply. Evaluated by the same evaluator as the Unleash SDK APIs: without a variant the " +
        "value is the flag's enabled state (a boolean; variant `enabled` or `disabled`); with a variant the value is its " +
        "payload (`json` as an object, `number` as a number, `string` and `csv` as a string, or the variant name when it has " +
        "none) and `variant` is the variant name. `context.targetingKey` becomes the Unleash `userId` and may be left out " +
        "(an anonymous user: Unleash's rules for a context without `userId` apply, so user lists and `userId` constraints " +
        "do not match and a `default`-stickiness rollout uses `sessionId`, else a random draw). Reasons (OpenFeature's): " +
        "`DISABLED` (off in the environment), `DEFAULT` (on, but nothing matched this context: the off answer), `STATIC` " +
        "(the same answer for every context), `SPLIT` (a rollout share or a weighted variant drew this context), " +
        "`TARGETING_MATCH` (constraints, segments, user lists, a sticky field, variant overrides or dependencies decided). " +
        "A provider reports `ERROR` itself for an error body or a value of another type than asked. " +
        "Errors: 404 `FLAG_NOT_FOUND` (unknown or outside the token's projects), 400 `PARSE_ERROR` (body not a JSON object), " +
        "`INVALID_CONTEXT` (context or `targetingKey` of the wrong type, or a value that is not a string, number or " +
        "boolean), 500 `GENERAL`.",
      pathParams: z.object({ key: z.string().describe("The flag name") }),
      contentType: "application/json",
      body: ofrepEvaluationRequestSchema,
      responses: {
        200: ofrepEvaluationSuccessSchema,
        400: ofrepEvaluationFailureSchema,
        401: errorBodySchema,
        403: errorBodySchema,
        404: ofrepFlagNotFoundSchema,
        500: ofrepGeneralErrorSchema,
      },
      metadata: { requestExample: exampleContext },
    },
    evaluateFlagsBulk: {
      method: "POST",
      path: "/evaluate/flags",
      summary: "Evaluate every flag (OFREP bulk)",
      description:
        "OpenFeature Remote Evaluation Protocol bulk evaluation, for client-side providers (`@openfeature/ofrep-web-provider`): " +
        "every flag in the token's projects and environment, disabled ones included, evaluated for one context, each as in " +
        "the single-flag operation. The answer carries an `ETag` (the snapshot revision and a digest of the context and " +
        "scope); sending it back in `If-None-Match` gets 304 while neither flags nor context changed. A request refused " +
        "whole answers 400 with `PARSE_ERROR` or `INVALID_CONTEXT`; a context without `targetingKey` is evaluated as " +
        "an anonymous user.",
      headers: z.object({ "if-none-match": z.string().optional().describe("The ETag of an earlier answer") }),
      contentType: "application/json",
      body: ofrepEvaluationRequestSchema,
      responses: {
        200: ofrepBulkEvaluationSuccessSchema,
        304: c.noBody(),
        400: ofrepBulkEvaluationFailureSchema,
        401: errorBodySchema,
        403: errorBodySchema,
        500: ofrepGeneralErrorSchema,
      },
      metadata: { requestExample: exampleContext, responseHeaders: { 200: { etag: { description: "Validator for If-None-Match" } } } },
    },
  },
  { ...routerOptions, pathPrefix: "/ofrep/v1" },
);
