/**
 * Every key Vexil keeps in the shared cache (Redis in a deployment, the in-memory cache in one process),
 * spelled here and nowhere else, so two features can never share a key by accident and an operator can
 * read what a key holds. The cache's key prefix (REDIS_KEY_PREFIX) goes before each of them.
 */
export const cacheKeys = {
  /** An environment's snapshot index: its revision and the names entry it goes with. Admin writes, frontend-eval reads. */
  snapshotIndex: (environment: string) => `snapshot:${environment}`,
  /** One flag of an environment's snapshot, as client JSON. */
  snapshotFeature: (environment: string, featureName: string) => `snapshot:${environment}:feature:${featureName}`,
  /** The segments an environment's snapshot refers to. */
  snapshotSegments: (environment: string) => `snapshot:${environment}:segments`,
  /** The sorted flag names of an environment's snapshot. */
  snapshotNames: (environment: string) => `snapshot:${environment}:names`,
  /** The environments that have a snapshot, so readers know what to hydrate at boot. */
  snapshotEnvironments: "snapshot-environments",
  /** The API token grants (digests, never secrets), shared by admin with every service. */
  tokenGrants: "tokens:grants",
  /** The signal endpoints and their token digests, shared by admin with signal-ingest. */
  signalEndpoints: "signal-endpoints",
  /** Sign-in attempts from one address in one window of the login limit. */
  loginRate: (clientIp: string, window: number) => `login-rate:${clientIp}:${window}`,
  /** Failed sign-ins of one account (a digest of its login), remembered for a while. */
  loginFailures: (accountDigest: string) => `login-failures:${accountDigest}`,
  /** Until when an account (a digest of its login) is locked after repeated failures. */
  loginLock: (accountDigest: string) => `login-lock:${accountDigest}`,
  /** A SAML request this server sent, until its answer arrives or it expires. */
  samlRequest: (requestId: string) => `saml-request:${requestId}`,
  /** A SAML assertion already used, so it opens a session only once. */
  samlAssertion: (assertionId: string) => `saml-assertion:${assertionId}`,
  /** An OIDC sign-in this server started (its PKCE verifier, nonce and the page to go back to), by its state, until the answer arrives or it expires. */
  oidcSignIn: (state: string) => `oidc-sign-in:${state}`,
  /** Signals one endpoint received in one second of the clock. */
  signalRate: (endpoint: string, second: number) => `signal-rate:${endpoint}:${second}`,
} as const;
