import type { Feature } from "@vexil/contracts";
import { useState } from "react";
import { adminApi, ok } from "../../api.js";
import { ErrorNote, fieldError, ResourceForm, TextField } from "../../components/forms.js";
import { keys } from "../../query-keys.js";
import { useResourceMutation } from "../../resource.js";

type Link = NonNullable<Feature["links"]>[number];

/** URLs on the flag (an issue, a pull request, a dashboard): opened in a new tab, added and removed here. */
export function FlagLinks({ projectId, flag }: { projectId: string; flag: Feature }) {
  const params = { projectId, featureName: flag.name };
  const [url, setUrl] = useState("");
  const [title, setTitle] = useState("");
  const add = useResourceMutation({
    mutate: () => ok(adminApi.flagLinks.create({ params, body: { url, title: title || undefined } })),
    invalidates: [keys.flag(projectId, flag.name)],
    done: () => `Link added to ${flag.name}`,
    onSuccess: () => {
      setUrl("");
      setTitle("");
    },
  });
  const remove = useResourceMutation({
    mutate: (link: Link) => ok(adminApi.flagLinks.remove({ params: { ...params, linkId: link.id } })),
    invalidates: [keys.flag(projectId, flag.name)],
    confirm: (link) => `Remove the link ${link.title || link.url}?`,
    done: (_, link) => `Link ${link.title || link.url} removed`,
  });
  const links = flag.links ?? [];
  return (
    <section className="card" aria-labelledby="links-title">
      <h2 id="links-title">Links</h2>
      {links.length === 0 && <p className="hint">No links yet: add the issue, pull request or dashboard that goes with this flag.</p>}
      <ul className="plain-list">
        {links.map((link) => (
          <li key={link.id}>
            <a href={link.url} target="_blank" rel="noopener noreferrer">
              {link.title || link.url}
            </a>{" "}
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run(link)}>
              Remove link {link.title || link.url}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={remove.error} />
      <ResourceForm
        title="Add a link"
        showTitle={false}
        inline
        submitLabel="Add link"
        pending={add.isPending}
        error={add.error}
        fields={["url", "title"]}
        onSubmit={() => add.mutate()}
      >
        <TextField
          label="URL"
          type="text"
          inputMode="url"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={fieldError(add.error, "url")}
        />
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={fieldError(add.error, "title")} />
      </ResourceForm>
    </section>
  );
}
