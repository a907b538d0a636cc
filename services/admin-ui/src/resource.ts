import { useMutation, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useToast } from "./components/Toasts.js";

export interface ResourceListOptions<TData, TRow> {
  key: QueryKey;
  list: () => Promise<TData>;
  /** The rows of the answer (`tokens`, `segments`, ...). */
  rows: (data: TData) => TRow[];
  enabled?: boolean;
}

/** A list screen's read: the query, and its rows once they are there. */
export function useResourceList<TData, TRow>({ key, list, rows, enabled }: ResourceListOptions<TData, TRow>) {
  const query = useQuery({ queryKey: key, queryFn: list, enabled });
  return { query, rows: query.data === undefined ? undefined : rows(query.data) };
}

export interface ResourceMutationOptions<TVars, TResult> {
  mutate: (vars: TVars) => Promise<TResult>;
  /** What shows the change, read again once it succeeds (the live updates do it for everyone else). */
  invalidates: readonly QueryKey[] | ((result: TResult, vars: TVars) => readonly QueryKey[]);
  /** A destructive action asks first, in the browser's own dialog; it runs only on yes. */
  confirm?: (vars: TVars) => string;
  /** The toast once it succeeded. */
  done?: (result: TResult, vars: TVars) => string;
  onSuccess?: (result: TResult, vars: TVars) => unknown;
}

/**
 * A change to a resource: runs it, refreshes what shows it, then says so in a toast. `run` asks
 * first when the change is destructive; `mutate` runs it without asking.
 */
export function useResourceMutation<TVars = void, TResult = unknown>(options: ResourceMutationOptions<TVars, TResult>) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const mutation = useMutation({
    mutationFn: options.mutate,
    onSuccess: async (result, vars) => {
      const shown = typeof options.invalidates === "function" ? options.invalidates(result, vars) : options.invalidates;
      await Promise.all(shown.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      await options.onSuccess?.(result, vars);
      if (options.done) toast(options.done(result, vars));
    },
  });
  const run = (vars: TVars) => {
    if (options.confirm && !window.confirm(options.confirm(vars))) return;
    mutation.mutate(vars);
  };
  return { ...mutation, run };
}
