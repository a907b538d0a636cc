import type { Page } from "playwright-core";
import type { TestSystem } from "./harness.js";

/** What single sign-on journeys (SAML, OIDC) check through the API: sessions, events, access through groups. */

/** The `vexil-session` cookie the browser holds, as a Cookie header, or undefined when signed out. */
export async function sessionCookie(vexil: TestSystem, page: Page): Promise<string | undefined> {
  const cookie = (await page.context().cookies(vexil.url)).find((c) => c.name === "vexil-session");
  return cookie ? `vexil-session=${cookie.value}` : undefined;
}

export interface LoggedEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The recorded events of a type, newest first. */
export async function eventsOf(vexil: TestSystem, type: string): Promise<LoggedEvent[]> {
  const { events } = (await vexil.expectStatus("/api/admin/events?limit=1000", undefined, 200)) as { events: LoggedEvent[] };
  return events.filter((e) => e.type === type);
}

/** A new admin's password session, as a browser holding one would send it. */
export async function passwordSessionCookie(vexil: TestSystem, username: string): Promise<string> {
  const password = "Str0ng-enough!";
  await vexil.api("/api/admin/user-admin", { method: "POST", body: { username, rootRole: "Admin", password } });
  const login = await vexil.api("/auth/simple/login", { method: "POST", token: null, body: { username, password } });
  return login.headers.get("set-cookie")!.split(";")[0]!;
}

/** Turns `<project>-flag` on in development with a browser's session: 200, or 403 without the access. */
export function toggleFlag(vexil: TestSystem, project: string, cookie: string): Promise<Response> {
  return vexil.api(`/api/admin/projects/${project}/features/${project}-flag/environments/development/on`, {
    method: "POST",
    token: null,
    headers: { cookie },
  });
}

/**
 * A project "payments" and the default one, a flag in each, and a Vexil group "payments-editors"
 * whose members are exactly the people in the identity provider's `idpGroup`, holding the Member
 * role (5) in payments only. Answers the group's id.
 */
export async function paymentsGroupAccess(vexil: TestSystem, idpGroup: string): Promise<number> {
  await vexil.createProject("payments");
  for (const project of ["payments", "default"])
    await vexil.expectStatus(`/api/admin/projects/${project}/features`, { method: "POST", body: { name: `${project}-flag` } }, 201);
  const group = await vexil.expectStatus(
    "/api/admin/groups",
    { method: "POST", body: { name: "payments-editors", mappingsSSO: [idpGroup], rootRole: null } },
    201,
  );
  await vexil.expectStatus(
    "/api/admin/projects/payments/access",
    { method: "POST", body: { roles: [5], groups: [{ id: group.id }] } },
    200,
  );
  return group.id as number;
}
