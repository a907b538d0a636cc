/** The navigation, grouped as people look for things; each group is a labelled list. */
export const navigation: Array<{ group: string; links: Array<[href: string, label: string]> }> = [
  {
    group: "Flags",
    links: [
      ["/flags", "All flags"],
      ["/flag-types", "Flag types"],
      ["/playground", "Playground"],
    ],
  },
  { group: "Projects", links: [["/projects", "Projects"]] },
  {
    group: "Configure",
    links: [
      ["/segments", "Segments"],
      ["/context", "Context fields"],
      ["/environments", "Environments"],
      ["/tag-types", "Tag types"],
      ["/strategies", "Strategy types"],
      ["/applications", "Applications"],
    ],
  },
  {
    group: "Access",
    links: [
      ["/access/users", "Users"],
      ["/access/groups", "Groups"],
      ["/access/service-accounts", "Service accounts"],
      ["/access/api-tokens", "API tokens"],
    ],
  },
  {
    group: "Admin",
    links: [
      ["/single-sign-on", "Single sign-on"],
      ["/integrations", "Integrations"],
      ["/signals", "Signals"],
      ["/events", "Event log"],
    ],
  },
];
