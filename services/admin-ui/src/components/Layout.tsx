import type { CurrentUser } from "@vexil/contracts";
import { logoutPath } from "@vexil/contracts";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Link, useLocation, useRoute } from "wouter";
import { useLiveUpdates } from "../live-updates.js";
import { useDefaultPassword } from "../session.js";
import { ThemeToggle } from "./ThemeToggle.js";

/** The navigation, grouped as people look for things; each group is a labelled list. */
export const navigation: Array<{ group: string; links: Array<[href: string, label: string]> }> = [
  { group: "Flags", links: [["/flags", "All flags"], ["/playground", "Playground"]] },
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
      ["/access/service-accounts", "Service accounts"],
      ["/access/api-tokens", "API tokens"],
    ],
  },
  {
    group: "Admin",
    links: [
      ["/integrations", "Integrations"],
      ["/signals", "Signals"],
      ["/events", "Event log"],
    ],
  },
];

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [active] = useRoute(`${href}/*?`);
  return (
    <Link href={href} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

/**
 * After an in-app navigation the focus moves to the new screen's content, so keyboard and screen
 * reader users start there (a full page load leaves it at the top, where the skip link is).
 */
function useFocusOnRouteChange(location: string) {
  const previous = useRef(location);
  useEffect(() => {
    if (previous.current === location) return;
    previous.current = location;
    document.getElementById("main")?.focus();
  }, [location]);
}

export function Layout({ me, children }: { me: CurrentUser; children: ReactNode }) {
  const closeLiveUpdates = useLiveUpdates();
  const firstStartPassword = useDefaultPassword(me.user.id);
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuOpenAt, setMenuOpenAt] = useState(location);
  // On a small screen the menu covers the page: a navigation closes it.
  if (menuOpen && menuOpenAt !== location) {
    setMenuOpen(false);
    setMenuOpenAt(location);
  }
  useFocusOnRouteChange(location);
  const who = me.user.name || me.user.username || me.user.email || "API token";
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => {
            setMenuOpen(!menuOpen);
            setMenuOpenAt(location);
          }}
        >
          Menu
        </button>
        <Link href="/" className="brand">
          Vexil
        </Link>
        <div className="top-bar-end">
          <ThemeToggle />
          <Link href="/account" className="who" aria-label={`Your account (${who})`}>
            {who}
          </Link>
          {/* Sign-out is a navigation: the server ends the session and redirects home. */}
          <form method="post" action={logoutPath} onSubmit={closeLiveUpdates}>
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      <div className="app-body">
        <nav id="sidebar" aria-label="Main" className={menuOpen ? "sidebar open" : "sidebar"}>
          {navigation.map(({ group, links }) => (
            <div className="nav-group" key={group}>
              <h2 className="nav-group-title" id={`nav-${group}`}>
                {group}
              </h2>
              <ul aria-labelledby={`nav-${group}`}>
                {links.map(([href, label]) => (
                  <li key={href}>
                    <NavLink href={href}>{label}</NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <div className="app-content">
          {firstStartPassword && (
            <div className="banner warning" role="status">
              You signed in with the first-start password, which everyone knows. <Link href="/account">Change it now</Link>.
            </div>
          )}
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        </div>
      </div>
    </div>
  );
}
