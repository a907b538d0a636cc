import type { CurrentUser } from "@vexil/contracts";
import { logoutPath } from "@vexil/contracts";
import type { ReactNode } from "react";
import { Link, useRoute } from "wouter";
import { useLiveUpdates } from "../live-updates.js";
import { useDefaultPassword } from "../session.js";
import { ThemeToggle } from "./ThemeToggle.js";

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [active] = useRoute(`${href}/*?`);
  return (
    <Link href={href} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

export function Layout({ me, children }: { me: CurrentUser; children: ReactNode }) {
  const closeLiveUpdates = useLiveUpdates();
  const firstStartPassword = useDefaultPassword(me.user.id);
  const who = me.user.name || me.user.username || me.user.email || "API token";
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <Link href="/" className="brand">
          Vexil
        </Link>
        <nav aria-label="Main">
          <NavLink href="/projects">Projects</NavLink>
          <NavLink href="/playground">Playground</NavLink>
          <NavLink href="/segments">Segments</NavLink>
          <NavLink href="/context">Context</NavLink>
          <NavLink href="/environments">Environments</NavLink>
          <NavLink href="/tag-types">Tags</NavLink>
          <NavLink href="/strategies">Strategies</NavLink>
          <NavLink href="/integrations">Integrations</NavLink>
          <NavLink href="/signals">Signals</NavLink>
          <NavLink href="/events">Events</NavLink>
          <NavLink href="/applications">Applications</NavLink>
          <NavLink href="/access/api-tokens">API tokens</NavLink>
          <NavLink href="/access/users">Users</NavLink>
          <NavLink href="/access/service-accounts">Service accounts</NavLink>
          <NavLink href="/account">Account</NavLink>
        </nav>
        <div className="top-bar-end">
          <ThemeToggle />
          <span className="who">{who}</span>
          {/* Sign-out is a navigation: the server ends the session and redirects home. */}
          <form method="post" action={logoutPath} onSubmit={closeLiveUpdates}>
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      {firstStartPassword && (
        <div className="banner warning" role="status">
          You signed in with the first-start password, which everyone knows. <Link href="/account">Change it now</Link>.
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
