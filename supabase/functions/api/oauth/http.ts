// What the authorization server's handlers share: the pages' response headers, the forms' body and
// origin check, and the refusals several pages give.
import type { Context } from "hono";
import { fromForeignOrigin, issuerOf } from "../../_shared/auth/mcp-oauth.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { errorPage } from "./pages.ts";

export type C = Context<AppEnv>;

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  // Not no-referrer: with it, browsers send `Origin: null` on the forms' POSTs, which the Origin check
  // refuses. same-origin still sends nothing to the client or any other site.
  "Referrer-Policy": "same-origin",
};

/** The authorization server's public URL: its pages' forms and redirects lead under it. */
export const issuer = (c: C) => issuerOf(c.get("config"));

export function html(c: C, body: string, status: 200 | 400 | 403 | 429 | 503 = 200, headers: Record<string, string> = {}): Response {
  return c.html(body, status, { ...PAGE_HEADERS, ...headers });
}

/** The pages' forms post only from the issuer's own origin (fromForeignOrigin). */
export function refuseForeignOrigin(c: C): Response | undefined {
  if (!fromForeignOrigin(c)) return undefined;
  return html(c, errorPage("Request refused", "This form may only be sent from the sign-in page itself."), 403);
}

/** A form whose CSRF token is not the session's. */
export const formOutOfDate = (c: C) => html(c, errorPage("Request refused", "This form is out of date. Go back and try again."), 403);

/** A form or link whose pending authorization request expired (or was never valid). */
export const linkExpired = (c: C) => html(c, errorPage("Link expired", "This sign-in link has expired. Start again from your assistant."), 400);

/** A form's fields (url-encoded or multipart); other bodies have none. */
export async function form(c: C): Promise<Record<string, string | string[]>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type) && !/^multipart\/form-data\b/i.test(type)) return {};
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value)) out[key] = value.filter((v): v is string => typeof v === "string");
  }
  return out;
}

/** A field sent once; a field sent twice counts as absent. */
export const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? undefined : value);
