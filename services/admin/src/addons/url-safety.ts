import ipaddr from "ipaddr.js";

const rangeNames: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  linkLocal: "a link-local address",
  unspecified: "the unspecified address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
};

/** Why an IP address may not be an addon target, or undefined when it is a public unicast address. */
export function nonPublicAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const range = ipaddr.process(address).range();
  if (range === "unicast") return undefined;
  return rangeNames[range] ?? `a ${range} address`;
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
