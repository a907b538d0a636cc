import type { CurrentUser } from "@vexil/contracts";
import { logoutPath } from "@vexil/contracts";
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from "react";
import { Link, useLocation, useRoute } from "wouter";
import { useLiveUpdates } from "../live-updates.js";
import { useDefaultPassword } from "../session.js";
import { navigation } from "./navigation.js";
import { ReviewNotice } from "./ReviewNotice.js";
import { ThemeToggle } from "./ThemeToggle.js";

const CommandMenu = lazy(() => import("./CommandMenu.js"));

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
  const [commandsOpen, setCommandsOpen] = useState(false);
  // The menu is loaded the first time it is asked for, and stays mounted afterwards.
  const [commandsWanted, setCommandsWanted] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        setCommandsWanted(true);
        setCommandsOpen((open) => !open);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
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
        <button
          type="button"
          className="command-button"
          aria-keyshortcuts="Control+K"
          onClick={() => {
            setCommandsWanted(true);
            setCommandsOpen(true);
          }}
        >
          Search <kbd aria-hidden="true">Ctrl K</kbd>
        </button>
        <div className="top-bar-end">
          <ThemeToggle />
          <span className="who">{who}</span>
          <NavLink href="/account">Account</NavLink>
          {/* Sign-out is a navigation: the server ends the session and redirects home. */}
          <form method="post" action={logoutPath} onSubmit={closeLiveUpdates}>
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      {commandsWanted && (
        <Suspense fallback={null}>
          <CommandMenu open={commandsOpen} onOpenChange={setCommandsOpen} />
        </Suspense>
      )}
      <div className="app-body">
        <nav id="sidebar" aria-label="Main" className={menuOpen ? "sidebar open" : "sidebar"}>
          {navigation.map(({ group, links }) => (
            <div className="nav-group" key={group}>
              {/* Not a heading: the screen's own headings stay the only ones with these names. */}
              <div className="nav-group-title" id={`nav-${group}`}>
                {group}
              </div>
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
          <ReviewNotice me={me} />
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        </div>
      </div>
    </div>
  );
}
