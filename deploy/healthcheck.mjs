// Container HEALTHCHECK: exit 0 when GET /health on this service's PORT answers 2xx.
// The node slim images carry neither curl nor wget; Node 20 has fetch built in.
const port = process.env.PORT || "4242";
try {
  const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
