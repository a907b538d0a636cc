/**
 * fast-check arbitraries derived from an OpenAPI 3 document: for each operation, requests whose
 * path parameters, query and JSON body follow the document's schemas most of the time, and
 * stray from them (wrong types, odd strings, missing fields) the rest, as a schemathesis run does.
 */
import fc from "fast-check";

type Schema = Record<string, any>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
interface Operation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface FuzzRequest {
  method: string;
  path: string;
  body: string | undefined;
}

const methods = ["get", "post", "put", "patch", "delete"];

/** Strings that have broken parsers and handlers before: odd characters, names that act as keys, huge numbers. */
const trickyString = fc.constantFrom(
  "",
  " ",
  "__proto__",
  "constructor",
  "toString",
  "a\ud800b",
  "%",
  "../..",
  "1e309",
  "-1",
  "null",
  "☃",
  "x".repeat(300),
);
const anyJson = fc.jsonValue({ maxDepth: 2 });

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && current.$ref; i++) current = doc.components?.schemas?.[String(current.$ref).split("/").pop()!] ?? {};
  return current;
}

/** Values that follow `schema`, with tricky and wrong ones mixed in. */
export function valueFor(doc: OpenApiDocument, raw: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const stray = depth > 3 ? fc.constant(null) : fc.oneof(trickyString, anyJson);
  const wrap = (arb: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: arb, weight: 5 }, { arbitrary: stray, weight: 1 });
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0)
    return fc.oneof(...alternatives.map((s: Schema) => valueFor(doc, s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return valueFor(doc, { ...Object.assign({}, ...schema.allOf.map((s: Schema) => resolve(doc, s))) }, depth);
  if (Array.isArray(schema.enum)) return wrap(fc.constantFrom(...schema.enum));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "date-time") return wrap(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
      if (schema.format === "date") return wrap(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
      if (schema.format === "uuid") return wrap(fc.uuid());
      return wrap(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 40) }));
    case "integer":
      return wrap(fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 2000 }));
    case "number":
      return wrap(fc.double({ min: schema.minimum ?? -10, max: schema.maximum ?? 2000, noNaN: true }));
    case "boolean":
      return wrap(fc.boolean());
    case "array":
      return depth > 3 ? fc.constant([]) : wrap(fc.array(valueFor(doc, schema.items, depth + 1), { maxLength: 3 }));
    case "object":
    default: {
      const properties: Record<string, Schema> = schema.properties ?? {};
      if (depth > 3 || Object.keys(properties).length === 0)
        return type === "object" ? wrap(fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 })) : stray;
      const required = new Set<string>(schema.required ?? []);
      const record = fc.record(Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, valueFor(doc, s, depth + 1)])), {
        requiredKeys: [...required].filter((key) => key in properties),
      });
      return wrap(record);
    }
  }
}

/** A path segment, percent-encoded; an unpaired surrogate goes as the bytes a careless client would send. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, "")) + "%ED%A0%80";
  }
}

/** Every operation of the document as an arbitrary of requests, keyed `METHOD path`. */
export function operationArbitraries(
  doc: OpenApiDocument,
  accept: (path: string, method: string) => boolean,
): Map<string, fc.Arbitrary<FuzzRequest>> {
  const result = new Map<string, fc.Arbitrary<FuzzRequest>>();
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation || !accept(template, method)) continue;
      const parameters = operation.parameters ?? [];
      const pathParams = parameters.filter((p) => p.in === "path");
      const queryParams = parameters.filter((p) => p.in === "query");
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      const arbitrary = fc
        .record({
          path: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, valueFor(doc, p.schema ?? { type: "string" })]))),
          query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, valueFor(doc, p.schema ?? { type: "string" })])), {
            requiredKeys: [],
          }),
          body: bodySchema ? valueFor(doc, bodySchema) : fc.constant(undefined),
        })
        .map(({ path, query, body }) => {
          const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(String(path[name] ?? "x")) || "x");
          const search = new URLSearchParams(
            Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === "string" ? v : JSON.stringify(v)]])),
          ).toString();
          return {
            method: method.toUpperCase(),
            path: search ? `${filled}?${search}` : filled,
            body: body === undefined ? undefined : JSON.stringify(body),
          };
        });
      result.set(`${method.toUpperCase()} ${template}`, arbitrary);
    }
  }
  return result;
}
