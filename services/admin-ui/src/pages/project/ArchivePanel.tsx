import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { adminApi, ok } from "../../api.js";
import { ErrorNote } from "../../components/forms.js";
import { keys } from "../../queries.js";

/** Archived flags: revive them, or delete them for good (asked first: that cannot be undone). */
export function ArchivePanel({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const archived = useQuery({
    queryKey: keys.archive(projectId),
    queryFn: () => ok(adminApi.features.listArchivedInProject({ params: { projectId } })),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.archive(projectId) }),
      queryClient.invalidateQueries({ queryKey: keys.flags(projectId) }),
      queryClient.invalidateQueries({ queryKey: keys.project(projectId) }),
    ]);
  const revive = useMutation({
    mutationFn: (featureName: string) => ok(adminApi.features.reviveArchived({ params: { featureName } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (featureName: string) => ok(adminApi.features.deleteArchived({ params: { featureName } })),
    onSuccess: refresh,
  });
  const flags = archived.data?.features ?? [];
  return (
    <>
      <ErrorNote error={archived.error ?? revive.error ?? remove.error} />
      {archived.data && flags.length === 0 && (
        <p className="empty">No archived flags. Archiving a flag (on its page) moves it here, from where it can be revived.</p>
      )}
      {flags.length > 0 && (
        <table aria-label="Archived flags">
          <thead>
            <tr>
              <th scope="col">Flag</th>
              <th scope="col">Archived</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {flags.map((flag) => (
              <tr key={flag.name}>
                <td>{flag.name}</td>
                <td>{flag.archivedAt ? new Date(flag.archivedAt).toLocaleString() : "—"}</td>
                <td className="actions">
                  <button type="button" onClick={() => revive.mutate(flag.name)} disabled={revive.isPending}>
                    Revive {flag.name}
                  </button>
                  <button
                    type="button"
                    className="danger"
                    disabled={remove.isPending}
                    onClick={() => {
                      if (confirm(`Delete ${flag.name} for good? This cannot be undone.`)) remove.mutate(flag.name);
                    }}
                  >
                    Delete {flag.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
