import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { ValidationError } from "@vexil/errors";
import type { EnvironmentSnapshot } from "../snapshots/environment-snapshot.js";
import { inScope, scopeKey, type FeatureScope } from "../snapshots/scope.js";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
/** Quality 5 compresses a 2,000-flag payload about as well as gzip -9 in a fraction of brotli's default (11) time. */
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };

export type ContentCoding = "br" | "gzip" | "identity";

/** Codings chosen per `Accept-Encoding` value; SDKs send a handful of distinct values. */
const codingByHeader = new Map<string, ContentCoding>();

/** The coding to answer in: brotli, else gzip, when the client accepts it (q=0 refuses one). */
export function preferredCoding(acceptEncoding: string | undefined): ContentCoding {
  if (!acceptEncoding) return "identity";
  let coding = codingByHeader.get(acceptEncoding);
  if (coding === undefined) {
    const accepted = new Set<string>();
    for (const part of acceptEncoding.split(",")) {
      const [name, ...params] = part.trim().toLowerCase().split(";");
      if (!params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param))) accepted.add(name!.trim());
    }
    coding = accepted.has("br") ? "br" : accepted.has("gzip") || accepted.has("x-gzip") ? "gzip" : "identity";
    // Bounded: distinct values beyond a few hundred are not SDKs.
    if (codingByHeader.size >= 256) codingByHeader.clear();
    codingByHeader.set(acceptEncoding, coding);
  }
  return coding;
}

/** A `/api/client/features` answer, serialised once per snapshot and query. */
export class FeaturesResponse {
  private readonly encoded = new Map<ContentCoding, Promise<Buffer>>();
  private readonly ready = new Map<ContentCoding, Buffer>();

  constructor(
    readonly etag: string,
    readonly body: Buffer,
  ) {}

  /** The body in `coding`, compressed on first demand, then reused by every request for this revision and query. */
  encodedBody(coding: ContentCoding): Promise<Buffer> {
    if (coding === "identity") return Promise.resolve(this.body);
    let encoded = this.encoded.get(coding);
    if (!encoded) {
      encoded = coding === "br" ? brotliAsync(this.body, brotliOptions) : gzipAsync(this.body);
      this.encoded.set(coding, encoded);
      encoded.then((body) => this.ready.set(coding, body)).catch(() => undefined);
    }
    return encoded;
  }

  /** The body in `coding` if it is at hand now (compressed already), else undefined. */
  encodedNow(coding: ContentCoding): Buffer | undefined {
    return coding === "identity" ? this.body : this.ready.get(coding);
  }
}

/**
 * SDKs below client specification 4.2.0 (or sending none) get segments inlined into the
 * strategies' constraints; newer ones get the segment list. A header that is no version is a 400,
 * as in Unleash.
 */
export function inlineSegmentsFor(specHeader: string | undefined): boolean {
  if (specHeader === undefined || specHeader === "") return true;
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(specHeader.trim());
  if (!match) {
    throw new ValidationError(`Invalid Unleash-Client-Spec header: "${specHeader}"`, [
      { path: "headers.unleash-client-spec", message: "Must be a semantic version such as 5.2.0" },
    ]);
  }
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major < 4 || (major === 4 && minor < 2);
}

export function featuresResponse(snapshot: EnvironmentSnapshot, scope: FeatureScope, inline: boolean): FeaturesResponse {
  const key = `${inline ? "inline" : "segments"}|${scopeKey(scope)}`;
  const cached = snapshot.responses.get(key);
  if (cached instanceof FeaturesResponse) return cached;

  const query = {
    ...(scope.projects ? { project: scope.projects } : {}),
    ...(scope.namePrefix !== undefined ? { namePrefix: scope.namePrefix } : {}),
    environment: snapshot.environment,
    inlineSegmentConstraints: inline,
  };
  const queryHash = createHash("sha1").update(JSON.stringify(query)).digest("hex").slice(0, 8);
  const etag = `"${queryHash}:${snapshot.revision}:v1"`;
  const texts = inline ? snapshot.inlinedFeatureJson() : snapshot.featureJson;
  const features: string[] = [];
  for (const [name, json] of texts) {
    if (inScope(scope, name, snapshot.features.get(name)?.project)) features.push(json);
  }
  // Spliced from the stored JSON texts: the flags are never serialised again here.
  const body =
    `{"version":2,"features":[${features.join(",")}],"query":${JSON.stringify(query)}` +
    (inline ? "" : `,"segments":${snapshot.segmentsJson}`) +
    `,"meta":${JSON.stringify({ revisionId: snapshot.revision, etag, queryHash })}}`;

  const response = new FeaturesResponse(etag, Buffer.from(body));
  snapshot.keep(key, response);
  return response;
}

/** True when an `If-None-Match` value names this ETag (weak or strong, in a list or alone). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch === etag) return true;
  return ifNoneMatch.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}
