/**
 * The deliberate differences, read from the table in DIFFERENCES.md (the one list, for people and
 * for the harness): each row names a kind, where (a step label or SDK surface) and a JSON path,
 * `*` matching any text and `;` separating alternatives, and the reason. A difference is allowed
 * when a row matches it.
 */
import { readFileSync } from "node:fs";
import type { Difference } from "./compare.js";

export interface AllowedDifference {
  id: string;
  kind: string;
  where: string;
  path: string;
  reason: string;
}

/** `*` matches any text; `;` separates alternatives. */
const glob = (pattern: string) =>
  new RegExp(
    `^(?:${pattern
      .split(";")
      .map((p) =>
        p
          .trim()
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*"),
      )
      .join("|")})$`,
  );
/** Table cells are code spans so that `*` and `|` survive Markdown; the backticks are not part of the pattern. */
const cell = (text: string) => text.trim().replace(/^`(.*)`$/, "$1");

export function readAllowedDifferences(file: string): AllowedDifference[] {
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => /^\|\s*D\d+\s*\|/.test(line));
  return rows.map((line) => {
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.replace(/\\\|/g, "|"));
    if (cells.length !== 5) throw new Error(`DIFFERENCES.md: a row needs 5 cells (id, kind, where, path, reason): ${line}`);
    const [id, kind, where, path, reason] = cells.map(cell) as [string, string, string, string, string];
    return { id, kind, where, path, reason };
  });
}

export function matches(allowed: AllowedDifference, difference: Difference): boolean {
  return (
    (allowed.kind === "*" || allowed.kind === difference.kind) &&
    glob(allowed.where).test(difference.where) &&
    glob(allowed.path).test(difference.path)
  );
}

export interface Judgement {
  /** Allowed id → the differences it covered. */
  allowed: Map<string, Difference[]>;
  unexplained: Difference[];
  /** Rows that matched nothing in this run: the difference is gone, so the row should go too. */
  stale: AllowedDifference[];
}

export function judge(list: readonly AllowedDifference[], differences: readonly Difference[]): Judgement {
  const allowed = new Map<string, Difference[]>(list.map((a) => [a.id, []]));
  const unexplained: Difference[] = [];
  for (const difference of differences) {
    const row = list.find((a) => matches(a, difference));
    if (row) allowed.get(row.id)!.push(difference);
    else unexplained.push(difference);
  }
  return { allowed, unexplained, stale: list.filter((a) => allowed.get(a.id)!.length === 0) };
}

/** One line per kind, place and path, with how often and one example: readable even for thousands. */
export function describeDifferences(differences: readonly Difference[], limit = 80): string {
  const groups = new Map<string, Difference[]>();
  for (const d of differences) {
    const key = `${d.kind} | ${d.where} | ${d.path}`;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  const lines = [...groups].map(([key, group]) => {
    const example = group[0]!;
    const show = (value: unknown) => JSON.stringify(value)?.slice(0, 160);
    return `${key} (${group.length}×) unleash=${show(example.unleash)} vexil=${show(example.vexil)}${example.detail ? ` [${example.detail}]` : ""}`;
  });
  return lines.slice(0, limit).join("\n") + (lines.length > limit ? `\n… and ${lines.length - limit} more` : "");
}
