// The person's Connected assistants page (GET /oauth/grants) and its Revoke buttons: what GET and
// DELETE /api/v3/me/mcp-grants do, for a person signed in on these pages instead of an API key.
import { browserSession, personScope } from "../../_shared/auth/mcp-oauth.ts";
import { revokeMyGrant, selectLiveGrants } from "../../_shared/grants/operations.ts";
import { csrfOf, csrfValid } from "../../_shared/oauth/sign-in.ts";
import { type C, form, formOutOfDate, html, issuer, one, refuseForeignOrigin } from "./http.ts";
import { grantsPage, signInPage } from "./pages.ts";

export async function grants(c: C): Promise<Response> {
  const session = await browserSession(c);
  if (!session) return html(c, signInPage(issuer(c), {}));
  // Read as that person under RLS.
  const rows = await c.get("db").statement(personScope(session.userId), selectLiveGrants);
  return html(c, grantsPage(issuer(c), { grants: rows, csrf: csrfOf(c.get("config"), session), email: session.email, notice: c.req.query("revoked") ? "Access revoked." : undefined }));
}

export async function revokeGrantFromPage(c: C): Promise<Response> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const session = await browserSession(c);
  if (!session) return html(c, signInPage(issuer(c), {}));
  const body = await form(c);
  if (!csrfValid(c.get("config"), session, one(body.csrf))) return formOutOfDate(c);
  await c.get("db").statement(personScope(session.userId), (tx) => revokeMyGrant(tx, one(body.grant_id) ?? ""));
  return c.body(null, 303, { Location: `${issuer(c)}/oauth/grants?revoked=1`, "Cache-Control": "no-store" });
}
