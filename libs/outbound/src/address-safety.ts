/**
 * Rules for requests Vexil sends to addresses users configure (addon targets): refuse private,
 * loopback and link-local destinations, both as written in the URL and as DNS resolves them, so a
 * saved URL cannot be turned against the network Vexil runs in (server-side request forgery).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

const rangeNames: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  linkLocal: "a link-local address",
  unspecified: "the unspecified address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
};

/**
 * The IPv4 addresses an IPv6 address carries, in every form that routes (or may be translated) to
 * them: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`),
 * NAT64 (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`), 6to4 (`2002:aabb:ccdd::/48`) and
 * Teredo (`2001:0::/32`: its server, and its client with the bits inverted).
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (count: number) => p.slice(0, count).every((part) => part === 0);
  if (zeros(5) && p[5] === 0xffff) return [v4(p[6]!, p[7]!)];
  // `::` and `::1` are the unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeros(6) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)];
  if (zeros(4) && p[4] === 0xffff && p[5] === 0) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x64 && p[1] === 0xff9b) return p[2] === 1 ? [v4(p[3]!, p[4]!), v4(p[6]!, p[7]!)] : [v4(p[6]!, p[7]!)];
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
  return [];
}

function rangeReason(range: string): string | undefined {
  if (range === "unicast") return undefined;
  return rangeNames[range] ?? `a ${range} address`;
}

/**
 * Why an IP address may not be the target of an outbound request, or undefined for a public
 * unicast one. The one classifier for every check (at save and at delivery): an IPv6 address that
 * embeds an IPv4 one is judged by that too, so no notation of a private address slips through.
 */
export function nonPublicAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    for (const inner of embeddedIpv4(parsed as ipaddr.IPv6)) {
      const reason = rangeReason(inner.range());
      if (reason) return `${reason} (${inner.toString()}, written as IPv6)`;
    }
  }
  return rangeReason(ipaddr.process(address).range());
}

/** A refusal of the target itself: retrying cannot help, so the delivery fails at once. */
export class TargetRefused extends Error {
  override name = "TargetRefused";
  readonly code = "ETARGETREFUSED";
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * A `lookup` for http.request that resolves the name, refuses it when any answer is not public, and
 * hands the socket only the addresses it checked, so a second DNS answer cannot slip in between.
 */
export function guardedLookup({ allowPrivate, resolve = systemResolver }: { allowPrivate: boolean; resolve?: Resolver }): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = allowPrivate ? undefined : addresses.find((a) => nonPublicAddressReason(a.address));
        if (refused) {
          const reason = nonPublicAddressReason(refused.address);
          return callback(new TargetRefused(`${hostname} resolves to ${refused.address}, ${reason}; addon targets must be public`), "", 4);
        }
        const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
        if (usable.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no usable address`), { code: "ENOTFOUND" }), "", 4);
        if (options.all) return (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 4),
    );
  };
}

/** Refuses a URL whose host is a non-public IP literal (the socket skips `lookup` for those). */
export function assertLiteralHostAllowed(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const reason = nonPublicAddressReason(host);
  if (reason) throw new TargetRefused(`${host} is ${reason}; addon targets must be public`);
}

/**
 * Why a target URL may not be saved, or undefined. Only what the URL shows is judged here: a host
 * name is resolved and checked at each delivery, because its DNS answer can change after saving.
 */
export function targetUrlProblem(raw: string, { allowPrivate }: { allowPrivate: boolean }): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `must use http or https, not ${url.protocol.slice(0, -1)}`;
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const reason = nonPublicAddressReason(host);
  return reason
    ? `points to ${host}, ${reason}; addon targets must be public (ADDONS_ALLOW_PRIVATE_URLS=true allows private ones)`
    : undefined;
}
