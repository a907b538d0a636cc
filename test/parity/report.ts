/**
 * The last run's result, written into test/parity/README.md between two markers so the README
 * always shows what was measured, not what someone remembered.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { AllowedDifference, Judgement } from "./differences.js";

export interface CategoryResult {
  category: string;
  compared: number;
  judgement: Judgement;
}

const start = "<!-- parity-result:start -->";
const end = "<!-- parity-result:end -->";

function count(judgement: Judgement): number {
  return [...judgement.allowed.values()].reduce((sum, list) => sum + list.length, 0);
}

export function resultMarkdown(results: readonly CategoryResult[], list: readonly AllowedDifference[], when: Date): string {
  const lines = [
    `Last run: ${when.toISOString().slice(0, 16).replace("T", " ")} UTC, unleash-server 8.2.0 against Vexil.`,
    "",
    "| Category | Compared | Allowed differences | Unexplained differences |",
    "|---|---:|---:|---:|",
    ...results.map((r) => `| ${r.category} | ${r.compared} | ${count(r.judgement)} | ${r.judgement.unexplained.length} |`),
    "",
    "| Allowed difference | Occurrences | Reason |",
    "|---|---:|---|",
    ...list.map((row) => {
      const occurrences = results.reduce((sum, r) => sum + (r.judgement.allowed.get(row.id)?.length ?? 0), 0);
      return `| ${row.id} | ${occurrences} | ${row.reason} |`;
    }),
  ];
  const stale = list.filter((row) => results.every((r) => (r.judgement.allowed.get(row.id)?.length ?? 0) === 0));
  if (stale.length > 0)
    lines.push("", `Listed but no longer seen (remove them from DIFFERENCES.md): ${stale.map((r) => r.id).join(", ")}.`);
  return lines.join("\n");
}

export function writeResult(readme: string, markdown: string): void {
  const text = readFileSync(readme, "utf8");
  const [before, rest] = [text.slice(0, text.indexOf(start)), text.slice(text.indexOf(end))];
  if (!text.includes(start) || !text.includes(end)) throw new Error(`${readme} lacks the ${start} … ${end} markers`);
  writeFileSync(readme, `${before}${start}\n\n${markdown}\n\n${rest}`);
}
