import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Command } from "cmdk";
import { useDeferredValue, useState } from "react";
import { useLocation } from "wouter";
import { adminApi, ok } from "../api.js";
import { flagPath, projectPath } from "../paths.js";
import { projectsQuery } from "../queries.js";
import { keys } from "../query-keys.js";
import { navigation } from "./navigation.js";

/**
 * Ctrl+K (⌘K): go anywhere by typing. Flags come from the server's search across every project;
 * projects and screens are filtered here. Loaded on first use, so it costs the first screen nothing.
 */
export default function CommandMenu({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const [, navigate] = useLocation();
  const [text, setText] = useState("");
  const query = useDeferredValue(text.trim());
  const projects = useQuery(projectsQuery);
  const flags = useQuery({
    queryKey: [...keys.flagSearch, "menu", query],
    queryFn: () => ok(adminApi.features.search({ query: { query, limit: 10 } })),
    enabled: open && query.length > 0,
    placeholderData: keepPreviousData,
  });
  const go = (path: string) => {
    onOpenChange(false);
    setText("");
    navigate(path);
  };
  return (
    <Command.Dialog
      open={open}
      onOpenChange={onOpenChange}
      label="Go to a flag, project or screen"
      overlayClassName="command-overlay"
      contentClassName="command-menu"
    >
      <Command.Input value={text} onValueChange={setText} placeholder="Find a flag, project or screen…" />
      <Command.List label="Matches">
        <Command.Empty>{flags.isFetching ? "Searching…" : "Nothing matches."}</Command.Empty>
        {query.length > 0 && (flags.data?.features.length ?? 0) > 0 && (
          <Command.Group heading="Flags">
            {flags.data!.features.map((flag) => (
              <Command.Item
                key={`${flag.project}/${flag.name}`}
                value={`flag ${flag.project}/${flag.name}`}
                keywords={[flag.name, flag.description ?? ""]}
                onSelect={() => go(flagPath(flag.project ?? "default", flag.name))}
              >
                {flag.name} <span className="hint">in {flag.project}</span>
              </Command.Item>
            ))}
          </Command.Group>
        )}
        <Command.Group heading="Projects">
          {projects.data?.projects.map((project) => (
            <Command.Item key={project.id} value={`project ${project.id} ${project.name}`} onSelect={() => go(projectPath(project.id))}>
              {project.name}
            </Command.Item>
          ))}
        </Command.Group>
        <Command.Group heading="Screens">
          {navigation.flatMap(({ links }) =>
            links.map(([href, label]) => (
              <Command.Item key={href} value={`screen ${label}`} onSelect={() => go(href)}>
                {label}
              </Command.Item>
            )),
          )}
        </Command.Group>
      </Command.List>
    </Command.Dialog>
  );
}
