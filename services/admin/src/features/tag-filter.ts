import type { Tag } from "@vexil/contracts";

/** How a flag's tags must relate to the tags asked for (Unleash's search operators for `tag`). */
export type TagMatch = "any" | "all" | "none" | "notAll";

export interface TagFilter {
  match: TagMatch;
  tags: Tag[];
}

/** The contract's `tagFilterPattern` lists the same operators. */
const operators: Record<string, TagMatch> = {
  INCLUDE: "any",
  INCLUDE_ANY_OF: "any",
  INCLUDE_ALL_OF: "all",
  DO_NOT_INCLUDE: "none",
  EXCLUDE_IF_ANY_OF: "none",
  EXCLUDE_ALL: "notAll",
};

/** `type:value`, `INCLUDE_ALL_OF:simple:a,simple:b`, ...: the contract has checked the shape. */
export function parseTagFilter(text: string): TagFilter {
  const [first, ...rest] = text.split(":");
  const match = first !== undefined && rest.length > 1 ? operators[first] : undefined;
  const list = match ? rest.join(":") : text;
  const tags = list.split(",").map((entry) => {
    const at = entry.indexOf(":");
    return { type: entry.slice(0, at).trim(), value: entry.slice(at + 1).trim() };
  });
  return { match: match ?? "any", tags };
}

/** Whether a flag carrying `carried` (`type:value` of the asked-for tags it has) passes the filter. */
export function passesTagFilter(filter: TagFilter, carried: ReadonlySet<string> | undefined): boolean {
  const count = carried?.size ?? 0;
  switch (filter.match) {
    case "any":
      return count > 0;
    case "all":
      return count === new Set(filter.tags.map((t) => `${t.type}:${t.value}`)).size;
    case "none":
      return count === 0;
    case "notAll":
      return count < new Set(filter.tags.map((t) => `${t.type}:${t.value}`)).size;
  }
}
