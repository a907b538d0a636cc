import { useId, useState, type ReactNode } from "react";
import { Skeleton } from "./Skeleton.js";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** Makes the column sortable by this value. */
  sortBy?: (row: Row) => string | number;
  /** A cell of buttons: kept on one line. */
  actions?: boolean;
  /** Hidden on a phone (the name and what is acted on stay). */
  narrowHidden?: boolean;
  /** Right-aligned, as figures are. */
  numeric?: boolean;
}

export const pageSizes = [25, 50, 100] as const;

export interface PagerProps {
  /** Zero-based. */
  page: number;
  pageSize: number;
  total: number;
  /** What the rows are, plural ("flags"). */
  noun: string;
  onPage: (page: number) => void;
  onPageSize: (pageSize: number) => void;
  /** The pager above the table and the one below are told apart by their names. */
  position: "top" | "bottom";
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** First, previous, next and last page, where the page stands, and how many rows a page shows. */
export function Pager({ page, pageSize, total, noun, onPage, onPageSize, position }: PagerProps) {
  const id = useId();
  const pages = pageCount(total, pageSize);
  const where = position === "top" ? "above" : "below";
  return (
    <div className="pager" role="group" aria-label={`Pages ${where} the table`}>
      <button type="button" onClick={() => onPage(0)} disabled={page === 0}>
        First
      </button>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page === 0}>
        Previous
      </button>
      <span>
        Page {page + 1} of {pages} · {total} {noun}
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page + 1 >= pages}>
        Next
      </button>
      <button type="button" onClick={() => onPage(pages - 1)} disabled={page + 1 >= pages}>
        Last
      </button>
      <label htmlFor={id}>Rows per page</label>
      <select id={id} value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
        {pageSizes.map((size) => (
          <option key={size}>{size}</option>
        ))}
      </select>
    </div>
  );
}

/** The sorted column, by its header (which stays right when other columns are hidden). */
export type Sort = { column: string; descending: boolean } | undefined;

/** The rows in the order of the sorted column (numbers as numbers, text as people sort it); stable. */
export function sortRows<Row>(rows: Row[], columns: Column<Row>[], sort: Sort): Row[] {
  const by = sort && columns.find((column) => column.header === sort.column)?.sortBy;
  if (!sort || !by) return rows;
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = by(a);
    const y = by(b);
    return sign * (typeof x === "number" && typeof y === "number" ? x - y : collator.compare(String(x), String(y)));
  });
}

const storedHidden = (table: string): string[] => {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(`vexil.hidden-columns.${table}`) ?? "[]");
    return Array.isArray(saved) ? saved.filter((h): h is string => typeof h === "string") : [];
  } catch {
    return [];
  }
};

/**
 * Which of a table's columns are shown, as the user chose them; the choice is kept in the browser
 * per table, so a daily list looks the same the next time.
 */
export function useColumnChoice(table: string) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set(storedHidden(table)));
  const setShown = (header: string, shown: boolean) => {
    const next = new Set(hidden);
    if (shown) next.delete(header);
    else next.add(header);
    localStorage.setItem(`vexil.hidden-columns.${table}`, JSON.stringify([...next]));
    setHidden(next);
  };
  return { shown: (header: string) => !hidden.has(header), setShown };
}

export type ColumnChoice = ReturnType<typeof useColumnChoice>;

/** A "Columns" disclosure with a checkbox per column that can be hidden. */
export function ColumnChooser({ choice, headers }: { choice: ColumnChoice; headers: string[] }) {
  return (
    <details className="column-chooser">
      <summary>Columns</summary>
      <fieldset>
        <legend>Columns shown</legend>
        {headers.map((header) => (
          <label className="check" key={header}>
            <input type="checkbox" checked={choice.shown(header)} onChange={(e) => choice.setShown(header, e.target.checked)} /> {header}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

interface DataTableProps<Row> {
  /** The table's accessible name; also names the kept column choice. */
  label: string;
  columns: Column<Row>[];
  /** Undefined while the list is read: a skeleton stands in for it. */
  rows: Row[] | undefined;
  rowKey: (row: Row) => string | number;
  noun: string;
  /** Shown instead of the table when there are no rows. */
  empty: ReactNode;
  busy?: boolean;
  /** Offer the "Columns" choice (a short table of few columns does without). */
  columnChoice?: boolean;
}

/**
 * A table of rows the screen already holds: sorted by a click on a sortable header, paged with a
 * pager above and below once it holds more than one page, and its columns chosen (every column but
 * the first and the actions can be hidden).
 */
export function DataTable<Row>({ label, columns, rows, rowKey, noun, empty, busy, columnChoice = true }: DataTableProps<Row>) {
  const [sort, setSort] = useState<Sort>();
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState<number>(pageSizes[0]);
  const choice = useColumnChoice(label);
  if (rows === undefined) return <Skeleton shape="table" />;
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  const optional = columnChoice ? columns.slice(1).filter((column) => !column.actions) : [];
  const shownColumns = columns.filter((column) => choice.shown(column.header) || !optional.includes(column));
  const pages = pageCount(rows.length, pageSize);
  const shownPage = Math.min(page, pages - 1);
  const sorted = sortRows(rows, shownColumns, sort);
  const shown = sorted.slice(shownPage * pageSize, (shownPage + 1) * pageSize);
  const pager = (position: "top" | "bottom") =>
    rows.length > pageSizes[0] && (
      <Pager
        page={shownPage}
        pageSize={pageSize}
        total={rows.length}
        noun={noun}
        onPage={setPage}
        onPageSize={(size) => {
          setPageSize(size);
          setPage(0);
        }}
        position={position}
      />
    );
  return (
    <>
      <div className="table-tools">
        {optional.length > 0 && <ColumnChooser choice={choice} headers={optional.map((column) => column.header)} />}
        {pager("top")}
      </div>
      <Table
        label={label}
        columns={shownColumns}
        rows={shown}
        rowKey={rowKey}
        busy={busy}
        sort={sort}
        onSort={(next) => {
          setSort(next);
          setPage(0);
        }}
      />
      {pager("bottom")}
    </>
  );
}

interface TableProps<Row> {
  label: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  busy?: boolean;
  sort: Sort;
  onSort: (sort: Sort) => void;
}

function cellClass(column: { actions?: boolean; narrowHidden?: boolean; numeric?: boolean }): string | undefined {
  return (
    [column.actions && "actions", column.narrowHidden && "narrow-hidden", column.numeric && "number"].filter(Boolean).join(" ") || undefined
  );
}

/** The table itself; sortable headers are buttons and say their order with aria-sort. */
export function Table<Row>({ label, columns, rows, rowKey, busy, sort, onSort }: TableProps<Row>) {
  return (
    // A wide table scrolls sideways on a phone; the region takes the focus so the keyboard can scroll it too.
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table aria-label={label} aria-busy={busy || undefined}>
        <thead>
          <tr>
            {columns.map((column) => {
              const sorted = sort?.column === column.header;
              const ariaSort = sorted ? (sort.descending ? "descending" : "ascending") : undefined;
              return (
                <th scope="col" key={column.header} aria-sort={ariaSort} className={cellClass(column)}>
                  {column.sortBy ? (
                    <button
                      type="button"
                      className="sort"
                      onClick={() => onSort({ column: column.header, descending: sorted ? !sort.descending : false })}
                    >
                      {column.header}
                      <span aria-hidden="true">{sorted ? (sort.descending ? " ▼" : " ▲") : " ↕"}</span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={cellClass(column)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
