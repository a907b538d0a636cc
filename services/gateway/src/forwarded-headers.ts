import type { RequestHandler } from "express";

const forwardedDetails = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"] as const;

/**
 * Cluster mode: the services believe the gateway's X-Forwarded-* (it is their trusted proxy), so
 * the gateway passes on only what it believes itself under its own `TRUST_PROXY`: the addresses of
 * the trusted chain (`req.ips`), and a trusted proxy's host and scheme. A client's own headers are
 * dropped, so it cannot pick the address a service rate-limits by or the origin it judges a
 * session's change by; the proxy then adds the gateway's view (its peer, the Host, the scheme).
 */
export const onlyTrustedForwarding: RequestHandler = (req, _res, next) => {
  const trust = req.app.get("trust proxy fn") as (address: string | undefined, hop: number) => boolean;
  if (!trust(req.socket.remoteAddress, 0)) for (const header of forwardedDetails) delete req.headers[header];
  const chain = req.ips;
  if (chain.length > 0) req.headers["x-forwarded-for"] = chain.join(", ");
  else delete req.headers["x-forwarded-for"];
  next();
};
