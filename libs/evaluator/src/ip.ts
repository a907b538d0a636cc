import ipaddr from "ipaddr.js";

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
type IpRange = [IpAddress, number];

/**
 * Dotted-quad IPv4 or IPv6, nothing looser (ipaddr.js would also take "127.1").
 * IPv4-mapped IPv6 ("::ffff:10.0.0.1", as dual-stack servers report peers) is unwrapped to IPv4.
 */
export function parseIp(value: string): IpAddress | undefined {
  const text = value.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const address = ipaddr.IPv6.parse(text);
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** "10.0.0.0/8", "2001:db8::/32", or a bare address meaning exactly that address. */
export function parseIpRange(value: string): IpRange | undefined {
  const slash = value.indexOf("/");
  const address = parseIp(slash === -1 ? value : value.slice(0, slash));
  if (!address) return undefined;
  const maxBits = address.kind() === "ipv4" ? 32 : 128;
  if (slash === -1) return [address, maxBits];
  const bitsText = value.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= maxBits ? [address, bits] : undefined;
}

export function inRange(address: IpAddress, range: IpRange): boolean {
  // ipaddr.js throws when matching across families.
  return address.kind() === range[0].kind() && address.match(range);
}
