import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DataTable, pageCount, sortRows, type Column } from "./DataTable.js";

interface Row {
  name: string;
  count: number;
}

const columns: Column<Row>[] = [
  { header: "Name", cell: (r) => r.name, sortBy: (r) => r.name },
  { header: "Count", cell: (r) => String(r.count), sortBy: (r) => r.count },
  { header: "Actions", cell: (r) => <button type="button">Delete {r.name}</button>, actions: true },
];

const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ name: `flag-${i + 1}`, count: (i * 7) % 10 }));

const names = () =>
  within(screen.getByRole("table"))
    .getAllByRole("row")
    .slice(1)
    .map((row) => row.firstElementChild!.textContent);

describe("sortRows", () => {
  it("sorts text as people do (flag-2 before flag-10) and numbers as numbers, either way", () => {
    const some = [
      { name: "flag-10", count: 3 },
      { name: "flag-2", count: 20 },
      { name: "Flag-1", count: 100 },
    ];
    expect(sortRows(some, columns, { column: "Name", descending: false }).map((r) => r.name)).toEqual(["Flag-1", "flag-2", "flag-10"]);
    expect(sortRows(some, columns, { column: "Count", descending: true }).map((r) => r.count)).toEqual([100, 20, 3]);
    expect(sortRows(some, columns, undefined)).toBe(some);
  });
});

describe("pageCount", () => {
  it("is at least one page", () => {
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(26, 25)).toBe(2);
  });
});

describe("DataTable", () => {
  it("shows the empty text instead of an empty table", () => {
    render(<DataTable label="Things" noun="things" columns={columns} rows={[]} rowKey={(r) => r.name} empty="Nothing yet." />);
    expect(screen.getByText("Nothing yet.")).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("sorts by a header click and says the order with aria-sort", () => {
    render(<DataTable label="Things" noun="things" columns={columns} rows={rows(3)} rowKey={(r) => r.name} empty="" />);
    fireEvent.click(screen.getByRole("button", { name: /Name/ }));
    expect(screen.getByRole("columnheader", { name: /Name/ }).getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(screen.getByRole("button", { name: /Name/ }));
    expect(screen.getByRole("columnheader", { name: /Name/ }).getAttribute("aria-sort")).toBe("descending");
    expect(names()).toEqual(["flag-3", "flag-2", "flag-1"]);
    expect(screen.getByRole("columnheader", { name: "Actions" }).className).toBe("actions");
  });

  it("pages long lists with a pager above and below, and a page size", () => {
    render(<DataTable label="Things" noun="things" columns={columns} rows={rows(60)} rowKey={(r) => r.name} empty="" />);
    const pagers = screen.getAllByRole("group", { name: /Pages/ });
    expect(pagers.map((p) => p.getAttribute("aria-label"))).toEqual(["Pages above the table", "Pages below the table"]);
    expect(names()).toHaveLength(25);
    fireEvent.click(within(pagers[0]!).getByRole("button", { name: "Last" }));
    expect(names()).toEqual(Array.from({ length: 10 }, (_, i) => `flag-${51 + i}`));
    expect(within(pagers[1]!).getByText(/Page 3 of 3 · 60 things/)).toBeTruthy();
    fireEvent.change(within(pagers[1]!).getByLabelText("Rows per page"), { target: { value: "100" } });
    expect(names()).toHaveLength(60);
    expect(screen.queryAllByRole("button", { name: "Next" }).every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
  });

  it("stands a skeleton in for rows still being read", () => {
    render(<DataTable label="Things" noun="things" columns={columns} rows={undefined} rowKey={(r) => r.name} empty="" />);
    expect(screen.getByRole("status", { name: "Loading" })).toBeTruthy();
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("hides a column the user unticks, keeps the choice for the next time, and never offers the first or the actions", () => {
    localStorage.clear();
    const { unmount } = render(<DataTable label="Things" noun="things" columns={columns} rows={rows(3)} rowKey={(r) => r.name} empty="" />);
    const chooser = screen.getByRole("group", { name: "Columns shown" });
    expect(
      within(chooser)
        .getAllByRole("checkbox")
        .map((box) => box.parentElement!.textContent!.trim()),
    ).toEqual(["Count"]);
    fireEvent.click(within(chooser).getByRole("checkbox", { name: "Count" }));
    expect(screen.queryByRole("columnheader", { name: /Count/ })).toBeNull();
    unmount();
    render(<DataTable label="Things" noun="things" columns={columns} rows={rows(3)} rowKey={(r) => r.name} empty="" />);
    expect(screen.getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Name ↕", "Actions"]);
  });

  it("shows no pager when one page holds every row", () => {
    render(<DataTable label="Things" noun="things" columns={columns} rows={rows(5)} rowKey={(r) => r.name} empty="" />);
    expect(screen.queryByRole("group", { name: /Pages/ })).toBeNull();
  });
});
