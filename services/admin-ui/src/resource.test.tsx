import { act, render, renderHook, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useResourceList, useResourceMutation } from "./resource.js";
import { withProviders } from "./test-utils.js";

afterEach(() => vi.restoreAllMocks());

describe("useResourceList", () => {
  it("reads under the key and hands out the rows of the answer", async () => {
    const { wrapper } = withProviders();
    const list = vi.fn(async () => ({ tagTypes: [{ name: "team" }, { name: "area" }] }));
    const { result } = renderHook(() => useResourceList({ key: ["tag-types"], list, rows: (data) => data.tagTypes }), { wrapper });
    expect(result.current.rows).toBeUndefined();
    await waitFor(() => expect(result.current.rows).toEqual([{ name: "team" }, { name: "area" }]));
    expect(list).toHaveBeenCalledTimes(1);
  });
});

describe("useResourceMutation", () => {
  it("refreshes what shows the change, then says so in a toast read out politely", async () => {
    const { wrapper, queryClient } = withProviders();
    const invalidate = vi.spyOn(queryClient, "invalidateQueries");
    const mutate = vi.fn(async (name: string) => ({ name }));
    const { result } = renderHook(
      () => useResourceMutation({ mutate, invalidates: (_r, name) => [["flags", name], ["projects"]], done: (r) => `${r.name} created` }),
      { wrapper },
    );
    act(() => result.current.run("checkout"));
    await screen.findByText("checkout created");
    expect(mutate).toHaveBeenCalledWith("checkout", expect.anything());
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([["flags", "checkout"], ["projects"]]);
    expect(screen.getByRole("status")).toHaveProperty("ariaLive", "polite");
  });

  it("asks first when destructive, and does nothing on no", async () => {
    const { wrapper } = withProviders();
    const mutate = vi.fn(async () => undefined);
    const ask = vi.spyOn(window, "confirm").mockReturnValueOnce(false).mockReturnValueOnce(true);
    const { result } = renderHook(() => useResourceMutation({ mutate, invalidates: [], confirm: (name: string) => `Delete ${name}?` }), {
      wrapper,
    });
    act(() => result.current.run("old-flag"));
    expect(ask).toHaveBeenLastCalledWith("Delete old-flag?");
    expect(mutate).not.toHaveBeenCalled();
    act(() => result.current.run("old-flag"));
    await waitFor(() => expect(mutate).toHaveBeenCalledTimes(1));
  });

  it("keeps the API's error and shows no toast when the change is refused", async () => {
    const { wrapper } = withProviders();
    const { result } = renderHook(
      () =>
        useResourceMutation({
          mutate: async () => Promise.reject(new Error("A tag type named team already exists")),
          invalidates: [],
          done: () => "created",
        }),
      { wrapper },
    );
    act(() => result.current.mutate());
    await waitFor(() => expect(result.current.error?.message).toBe("A tag type named team already exists"));
    expect(screen.queryByText("created")).toBeNull();
  });
});

describe("a toast", () => {
  it("is in a live region present before it appears", () => {
    const { wrapper: Wrapper } = withProviders();
    render(<Wrapper>nothing yet</Wrapper>);
    expect(screen.getByRole("status").textContent).toBe("");
  });
});
