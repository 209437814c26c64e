// GET /oauth/authorize, and the consent page that answers it (GET and POST /oauth/consent). The
// request is checked and signed by the domain (_shared/oauth/authorization.ts); here it becomes
// pages, or a redirect back to the client with `code` or `error`.
import { type BrowserSession, browserSession } from "../../_shared/auth/mcp-oauth.ts";
import {
  type AuthorizationRequest, checkAuthorizationRequest, consentedScopes, issueAuthorizationCode, readAuthorizationRequest,
  type RedirectTarget, signAuthorizationRequest,
} from "../../_shared/oauth/authorization.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { hostOf } from "../../_shared/oauth/clients.ts";
import { csrfOf, csrfValid } from "../../_shared/oauth/sign-in.ts";
import { type C, form, formOutOfDate, html, issuer, linkExpired, one, refuseForeignOrigin } from "./http.ts";
import { consentPage, errorPage, signInPage } from "./pages.ts";

/** The redirect back to the client: `code` or `error`, with `state` and `iss` (RFC 9207). */
function redirectBack(c: C, target: RedirectTarget, params: Record<string, string>): Response {
  const url = new URL(target.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (target.state !== null) url.searchParams.set("state", target.state);
  url.searchParams.set("iss", issuer(c));
  return c.body(null, 303, { Location: url.toString(), "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
}

function renderConsent(c: C, session: BrowserSession, request: AuthorizationRequest, token: string, status: 200 | 400 = 200): Response {
  return html(c, consentPage(issuer(c), {
    request: token,
    csrf: csrfOf(c.get("config"), session),
    clientName: request.clientName,
    redirectHost: hostOf(request.redirectUri),
    scopes: request.scopes,
    email: session.email,
  }), status);
}

export async function authorize(c: C): Promise<Response> {
  const config = c.get("config");
  const q = (name: string) => c.req.query(name);
  const checked = await checkAuthorizationRequest(config, c.get("db"), {
    clientId: q("client_id"),
    redirectUri: q("redirect_uri"),
    state: q("state"),
    responseType: q("response_type"),
    codeChallenge: q("code_challenge"),
    codeChallengeMethod: q("code_challenge_method"),
    resource: q("resource"),
    scope: q("scope"),
  });
  switch (checked.outcome) {
    case "unknown_client":
      return html(c, errorPage("Unknown application", `This sign-in link is not valid: ${checked.reason}.`), 400);
    case "unknown_redirect":
      return html(c, errorPage("Unknown redirect", "This sign-in link sends you to an address the application did not register."), 400);
    case "refused":
      return redirectBack(c, checked.back, { error: checked.error, error_description: checked.description });
  }
  const { request } = checked;
  const token = await signAuthorizationRequest(config, request);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage(issuer(c), { request: token, clientName: request.clientName }));
  return renderConsent(c, session, request, token);
}

export async function consent(c: C): Promise<Response> {
  const token = c.req.query("request");
  const request = await readAuthorizationRequest(c.get("config"), token);
  if (!request) return linkExpired(c);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage(issuer(c), { request: token, clientName: request.clientName }));
  return renderConsent(c, session, request, token!);
}

/** POST /oauth/consent: the person's Allow (with the scopes they ticked) or Deny. */
export async function decide(c: C): Promise<Response> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const config = c.get("config");
  const body = await form(c);
  const token = one(body.request);
  const request = await readAuthorizationRequest(config, token);
  if (!request) return linkExpired(c);
  const session = await browserSession(c);
  if (!session) return html(c, signInPage(issuer(c), { request: token, clientName: request.clientName }));
  if (!csrfValid(config, session, one(body.csrf))) return formOutOfDate(c);
  if (one(body.decision) !== "approve") return redirectBack(c, request, { error: "access_denied", error_description: "the person denied access" });
  const chosen = consentedScopes(request, ([] as string[]).concat(body.scope ?? []));
  if (chosen.length === 0) return renderConsent(c, session, request, token!, 400);
  let code: string;
  try {
    code = await issueAuthorizationCode(c.get("db"), session, request, chosen);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return html(c, signInPage(issuer(c), { request: token, clientName: request.clientName }));
    throw error;
  }
  return redirectBack(c, request, { code });
}
