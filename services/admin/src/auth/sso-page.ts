import type { Response } from "express";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * A page of its own for the steps of single sign-on the web UI does not see: a refused sign-in
 * (with why, and the way back), or the hand-over to the identity provider's sign-out. A page, not
 * a redirect, for the latter: the sign-out form may only send the browser to this server
 * (`form-action 'self'`), and a page that moves on by itself is a new navigation.
 */
export function sendSsoPage(res: Response, status: number, { title, message, next }: { title: string; message: string; next?: string }) {
  const link = next ?? "/login";
  res
    .status(status)
    .type("html")
    .setHeader("cache-control", "no-store")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · Vexil</title>` +
        (next ? `<meta http-equiv="refresh" content="0;url=${escape(next)}">` : "") +
        `</head><body><main><h1>${escape(title)}</h1><p role="status">${escape(message)}</p>` +
        `<p><a href="${escape(link)}">${next ? "Continue" : "Back to sign-in"}</a></p></main></body></html>`,
    );
}
