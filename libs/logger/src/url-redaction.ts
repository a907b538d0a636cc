/**
 * Some paths carry credentials (`PUT /api/admin/api-tokens/<secret>`, `/invite/<secret>/signup`)
 * and so may `location` headers pointing at them. Masks the random part of anything shaped like an
 * API token (`<project>:<env>.<random>`, raw or percent-encoded) and any long hex run (invite and
 * personal access token secrets), keeping the rest of the URL readable.
 */
export function redactSecretsInUrl(url: string): string {
  return url.replace(/((?::|%3A)[^/?#&=:]*\.)[^/?#&]+/gi, "$1[redacted]").replace(/[0-9a-f]{24,}/gi, "[redacted]");
}
