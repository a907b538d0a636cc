import proxyaddr from "proxy-addr";

/** Words for "believe no peer's X-Forwarded-*": the client address is the connection's. */
const trustNone = new Set(["", "none", "false"]);

/**
 * `TRUST_PROXY` as express's `trust proxy` takes it: `none` (or `false`, or empty) trusts no peer;
 * otherwise addresses, subnets and the names `loopback`, `linklocal`, `uniquelocal`, comma-separated.
 */
export function trustProxySetting(value: string): false | string {
  return trustNone.has(value.trim().toLowerCase()) ? false : value;
}

/** Why a `TRUST_PROXY` value cannot be used, or undefined when it can. */
export function trustProxyProblem(value: string): string | undefined {
  const setting = trustProxySetting(value);
  if (setting === false) return undefined;
  try {
    proxyaddr.compile(setting.split(",").map((part) => part.trim()));
    return undefined;
  } catch (err) {
    return `${(err as Error).message} (addresses, subnets, loopback, linklocal, uniquelocal or none)`;
  }
}
