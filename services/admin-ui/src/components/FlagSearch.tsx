import { keepPreviousData, useQuery, type QueryKey } from "@tanstack/react-query";
import { featureTypeNames } from "@vexil/contracts";
import { useDeferredValue, useState, type ReactNode } from "react";
import { adminApi, ok } from "../api.js";
import type { PagerProps } from "./DataTable.js";
import { SelectField, TextField } from "./forms.js";

/** What a flag list narrows by; an empty string means "any". */
export interface FlagFilters {
  project: string;
  type: string;
  state: string;
  tag: string;
}

const noFilters: FlagFilters = { project: "", type: "", state: "", tag: "" };

/**
 * A list of flags searched, filtered and paged by the server (`GET /api/admin/search/features`), so a
 * project of thousands stays quick: the typed text, the filters, the page and its size, and the answer.
 * `key` is the query key the list is kept under (a project's flags, or every project's); `initial`
 * filters come from a link (`/flags?type=experiment`).
 */
export function useFlagSearch(key: QueryKey, scope: { project?: string } = {}, initial: Partial<FlagFilters> = {}) {
  const [text, setText] = useState("");
  const query = useDeferredValue(text.trim());
  const [filters, setFilters] = useState<FlagFilters>(() => ({ ...noFilters, ...initial }));
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(50);
  const project = scope.project ?? filters.project;
  const search = {
    query: query || undefined,
    project: project ? `IS:${project}` : undefined,
    type: filters.type || undefined,
    state: filters.state || undefined,
    tag: filters.tag || undefined,
  };
  const flags = useQuery({
    queryKey: [...key, search, page, pageSize],
    queryFn: () => ok(adminApi.features.search({ query: { ...search, offset: page * pageSize, limit: pageSize } })),
    placeholderData: keepPreviousData,
  });
  const pager: Omit<PagerProps, "position"> = {
    page,
    pageSize,
    total: flags.data?.total ?? 0,
    noun: "flags",
    onPage: setPage,
    onPageSize: (size) => {
      setPageSize(size);
      setPage(0);
    },
  };
  return {
    text,
    /** A new search or filter starts again on the first page. */
    setText: (value: string) => {
      setText(value);
      setPage(0);
    },
    filters,
    setFilter: (name: keyof FlagFilters, value: string) => {
      setFilters((current) => ({ ...current, [name]: value }));
      setPage(0);
    },
    /** Whether anything narrows the list (an empty answer then says "no match", not "no flags"). */
    narrowed: !!query || Object.values(filters).some(Boolean),
    flags,
    pager,
  };
}

export type FlagSearch = ReturnType<typeof useFlagSearch>;

/** The search box and the type and state filters; `children` adds the list's own filters after them. */
export function FlagSearchFields({ search, children }: { search: FlagSearch; children?: ReactNode }) {
  return (
    <>
      <TextField
        label="Search"
        type="search"
        value={search.text}
        onChange={(e) => search.setText(e.target.value)}
        placeholder="Name or description"
      />
      <SelectField label="Type" value={search.filters.type} onChange={(e) => search.setFilter("type", e.target.value)}>
        <option value="">Any type</option>
        {featureTypeNames.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </SelectField>
      <SelectField label="State" value={search.filters.state} onChange={(e) => search.setFilter("state", e.target.value)}>
        <option value="">Any state</option>
        <option value="active">active</option>
        <option value="stale">stale</option>
      </SelectField>
      {children}
    </>
  );
}
