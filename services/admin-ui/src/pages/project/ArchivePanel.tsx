import type { Feature } from "@vexil/contracts";
import { adminApi, ok } from "../../api.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { ErrorNote } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceList, useResourceMutation } from "../../resource.js";

/** Archived flags: revive them (off in every environment), or delete them for good (asked first: that cannot be undone). */
export function ArchivePanel({ projectId }: { projectId: string }) {
  const archived = useResourceList({
    key: keys.archive(projectId),
    list: () => ok(adminApi.features.listArchivedInProject({ params: { projectId } })),
    rows: (data) => data.features,
  });
  const shown = [keys.archive(projectId), keys.flags(projectId), keys.project(projectId), keys.flagSearch];
  const revive = useResourceMutation({
    mutate: (featureName: string) => ok(adminApi.features.reviveArchived({ params: { featureName } })),
    invalidates: shown,
    confirm: (name) => `Revive ${name}? It comes back off in every environment; switch it on where it should be.`,
    done: (_, name) => `${name} revived, off in every environment`,
  });
  const remove = useResourceMutation({
    mutate: (featureName: string) => ok(adminApi.features.deleteArchived({ params: { featureName } })),
    invalidates: shown,
    confirm: (name) => `Delete ${name} for good? This cannot be undone.`,
    done: (_, name) => `${name} deleted`,
  });
  const columns: Column<Feature>[] = [
    { header: "Flag", cell: (flag) => flag.name, sortBy: (flag) => flag.name },
    {
      header: "Archived",
      cell: (flag) => (flag.archivedAt ? new Date(flag.archivedAt).toLocaleString() : "—"),
      sortBy: (flag) => flag.archivedAt ?? "",
    },
    {
      header: "Actions",
      actions: true,
      cell: (flag) => (
        <>
          <button type="button" onClick={() => revive.run(flag.name)} disabled={revive.isPending}>
            Revive {flag.name}
          </button>
          <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(flag.name)}>
            Delete {flag.name}
          </button>
        </>
      ),
    },
  ];
  return (
    <>
      <ErrorNote error={archived.query.error ?? revive.error ?? remove.error} />
      {!archived.query.error && (
        <DataTable
          label="Archived flags"
          noun="archived flags"
          columns={columns}
          rows={archived.rows}
          rowKey={(flag) => flag.name}
          empty="No archived flags. Archiving a flag (on its page) moves it here, from where it can be revived."
        />
      )}
    </>
  );
}
