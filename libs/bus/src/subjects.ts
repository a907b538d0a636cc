const forbiddenInToken = /[\s]/;

/**
 * Rejects subjects NATS would refuse or misroute: empty tokens, whitespace, and wildcards where a
 * concrete subject is required. Both bus implementations call it so they fail the same way.
 */
export function assertSubject(subject: string, { wildcards }: { wildcards: boolean }): void {
  if (typeof subject !== "string" || subject.length === 0) throw new TypeError("subject must be a non-empty string");
  const tokens = subject.split(".");
  tokens.forEach((token, i) => {
    if (token.length === 0 || forbiddenInToken.test(token)) {
      throw new TypeError(`invalid subject "${subject}": empty token or whitespace`);
    }
    const isWildcard = token === "*" || token === ">";
    if (isWildcard && !wildcards) throw new TypeError(`invalid subject "${subject}": wildcards are not allowed here`);
    if (token === ">" && i !== tokens.length - 1) throw new TypeError(`invalid subject "${subject}": ">" must be last`);
    if (!isWildcard && (token.includes("*") || token.includes(">"))) {
      throw new TypeError(`invalid subject "${subject}": a wildcard must be a whole token`);
    }
  });
}

/** NATS matching: `*` matches exactly one token, a trailing `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== "*" && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}
