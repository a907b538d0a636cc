import { useQuery } from "@tanstack/react-query";
import type { FeatureTypeList } from "@vexil/contracts";
import { Link } from "wouter";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote } from "../../components/forms.js";
import { keys } from "../../query-keys.js";

type FlagType = FeatureTypeList["types"][number] & { flags?: number };

const lifetime = (days: number | null) => (days === null ? "permanent" : `${days} days`);

/**
 * The flag types: what each is for, how long its flags are expected to live (after that they count
 * as potentially stale), and how many flags of every project have it, each a link to those flags.
 */
export function FlagTypesPage() {
  const types = useQuery({ queryKey: keys.featureTypes, queryFn: () => ok(adminApi.features.listTypes()) });
  // One search per type, asking for no rows: the answer's total is the count.
  const counts = useQuery({
    queryKey: [...keys.flagSearch, "count-by-type"],
    enabled: !!types.data,
    queryFn: async () =>
      new Map(
        await Promise.all(
          types.data!.types.map(
            async (type) => [type.id, (await ok(adminApi.features.search({ query: { type: type.id, limit: 1 } }))).total] as const,
          ),
        ),
      ),
  });
  const columns: Column<FlagType>[] = [
    {
      header: "Flag type",
      cell: (type) => (
        <>
          <strong>{type.name}</strong>
          <div className="hint">{type.description}</div>
        </>
      ),
      sortBy: (type) => type.name,
    },
    {
      header: "Expected lifetime",
      cell: (type) => lifetime(type.lifetimeDays),
      sortBy: (type) => type.lifetimeDays ?? Number.MAX_SAFE_INTEGER,
    },
    {
      header: "Flags",
      cell: (type) =>
        type.flags === undefined ? (
          "…"
        ) : (
          <Link href={`/flags?type=${encodeURIComponent(type.id)}`}>{`${type.flags} ${type.name} flags`}</Link>
        ),
      sortBy: (type) => type.flags ?? 0,
    },
  ];
  return (
    <section>
      <h1>Flag types</h1>
      <p className="hint">
        A flag's type says what it is for. Past its expected lifetime a flag counts as potentially stale in its project's health.
      </p>
      <ErrorNote error={types.error ?? counts.error} />
      {!types.error && (
        <DataTable
          label="Flag types"
          noun="flag types"
          columns={columns}
          rows={types.data?.types.map((type) => ({ ...type, flags: counts.data?.get(type.id) }))}
          rowKey={(type) => type.id}
          empty="No flag types."
        />
      )}
    </section>
  );
}
