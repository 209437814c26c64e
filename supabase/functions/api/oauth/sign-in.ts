// Sign-in by e-mail code (POST /oauth/sign-in, /oauth/sign-in/verify) and sign-out (GET and POST
// /oauth/sign-out): the forms, the pages and the session cookie. Codes, sessions and their limits
// are the domain's (_shared/oauth/sign-in.ts).
import { deleteCookie, setCookie } from "hono/cookie";
import { browserSession, browserSessionCookie, fromForeignOrigin } from "../../_shared/auth/mcp-oauth.ts";
import type { Config } from "../../_shared/config.ts";
import { clientAddress } from "../../_shared/http/client-address.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { type AuthorizationRequest, readAuthorizationRequest } from "../../_shared/oauth/authorization.ts";
import { csrfOf, csrfValid, endBrowserSession, isEmailAddress, issueSignInCode, mailSignInCode, signInWithCode } from "../../_shared/oauth/sign-in.ts";
import { type C, form, formOutOfDate, html, issuer, linkExpired, one, refuseForeignOrigin } from "./http.ts";
import { codePage, errorPage, signedOutPage, signInPage, signOutPage } from "./pages.ts";

/** The sign-in pages' session cookie and its attributes: set by sign-in, and cleared with the same ones by sign-out. */
function sessionCookie(config: Config) {
  const { name, secure } = browserSessionCookie(config);
  return { name, attributes: { path: "/", httpOnly: true, secure, sameSite: "Lax" } as const };
}

interface SignInForm {
  body: Record<string, string | string[]>;
  /** The pending authorization request, when the sign-in is part of one (else it leads to the grants page). */
  requestToken: string | undefined;
  request: AuthorizationRequest | undefined;
  email: string;
}

/** The sign-in forms' common part: same-origin only, the pending request still valid, the address. */
async function signInForm(c: C): Promise<Response | SignInForm> {
  const refused = refuseForeignOrigin(c);
  if (refused) return refused;
  const body = await form(c);
  const requestToken = one(body.request) || undefined;
  const request = requestToken ? await readAuthorizationRequest(c.get("config"), requestToken) : undefined;
  if (requestToken && !request) return linkExpired(c);
  return { body, requestToken, request, email: (one(body.email) ?? "").trim().toLowerCase() };
}

/** A 429's Retry-After in words: a code's resend interval is seconds, the day's wrong codes hours. */
function waitOf(error: ApiError): string {
  const seconds = Number(error.headers?.["Retry-After"] ?? 60);
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}

export async function requestSignInCode(c: C): Promise<Response> {
  const input = await signInForm(c);
  if (input instanceof Response) return input;
  const { requestToken, request, email } = input;
  const config = c.get("config");
  if (!isEmailAddress(email)) {
    return html(c, signInPage(issuer(c), { request: requestToken, email, error: "Enter a valid e-mail address.", clientName: request?.clientName }), 400);
  }
  let issued: { signInId: string; code: string };
  try {
    issued = await issueSignInCode(c.get("db"), config, email, clientAddress(c));
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      const notYet = `No new code can be sent yet. Try again in ${waitOf(error)}.`;
      return html(c, signInPage(issuer(c), { request: requestToken, email, error: notYet, clientName: request?.clientName }), 429, error.headers);
    }
    throw error;
  }
  try {
    await mailSignInCode(config, email, issued.code, request?.clientName);
  } catch (error) {
    if (error instanceof ApiError) return html(c, errorPage("Mail not sent", error.message), 503);
    throw error;
  }
  return html(c, codePage(issuer(c), { request: requestToken, email, signInId: issued.signInId }));
}

export async function verifySignInCode(c: C): Promise<Response> {
  const input = await signInForm(c);
  if (input instanceof Response) return input;
  const { body, requestToken, request, email } = input;
  const config = c.get("config");
  const signInId = one(body.sign_in_id) ?? "";
  const code = (one(body.code) ?? "").trim();
  let outcome: Awaited<ReturnType<typeof signInWithCode>>;
  try {
    outcome = await signInWithCode(c.get("db"), config, { signInId, email, code, ip: clientAddress(c) });
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      return html(c, codePage(issuer(c), { request: requestToken, email, signInId, error: `Too many tries. Try again in ${waitOf(error)}.` }), 429, error.headers);
    }
    throw error;
  }
  if ("error" in outcome) {
    if (outcome.error === "start_again") {
      return html(c, signInPage(issuer(c), { request: requestToken, error: "Start again: enter your e-mail address.", clientName: request?.clientName }), 400);
    }
    if (outcome.error === "wrong_code") return html(c, codePage(issuer(c), { request: requestToken, email, signInId, error: "That code is not right." }), 400);
    return html(c, signInPage(issuer(c), { request: requestToken, email, error: "That code has expired or was used up. Request a new one.", clientName: request?.clientName }), 400);
  }
  const cookie = sessionCookie(config);
  setCookie(c, cookie.name, outcome.sessionToken, { ...cookie.attributes, maxAge: config.MCP_BROWSER_SESSION_SECONDS });
  const next = requestToken ? `${issuer(c)}/oauth/consent?request=${encodeURIComponent(requestToken)}` : `${issuer(c)}/oauth/grants`;
  return c.body(null, 303, { Location: next, "Cache-Control": "no-store" });
}

/** The Sign out button alone, for pages that cannot render the session's CSRF token (the confirmation page). */
export async function signOutForm(c: C): Promise<Response> {
  const session = await browserSession(c);
  if (!session) return html(c, signedOutPage({ again: `${issuer(c)}/oauth/grants`, againLabel: "Sign in", wasSignedIn: false }));
  return html(c, signOutPage(issuer(c), { email: session.email, csrf: csrfOf(c.get("config"), session) }));
}

/**
 * Ends this browser's session and clears the cookie with the attributes it was set with. Same
 * protection as the other forms (the Origin check, then the session's CSRF token); a foreign Origin
 * gets the one error body. Grants are untouched: assistants keep their access until revoked.
 */
export async function signOut(c: C): Promise<Response> {
  if (fromForeignOrigin(c)) throw new ApiError(403, "origin_not_allowed", "Sign-out is accepted only from this service's own pages.");
  const config = c.get("config");
  const body = await form(c);
  const session = await browserSession(c);
  if (session) {
    if (!csrfValid(config, session, one(body.csrf))) return formOutOfDate(c);
    await endBrowserSession(c.get("db"), session);
  }
  const cookie = sessionCookie(config);
  deleteCookie(c, cookie.name, cookie.attributes);
  // Signed out from the consent page: signing in again continues that authorization.
  const requestToken = one(body.request);
  const request = await readAuthorizationRequest(config, requestToken);
  return html(c, signedOutPage({
    again: request ? `${issuer(c)}/oauth/consent?request=${encodeURIComponent(requestToken!)}` : `${issuer(c)}/oauth/grants`,
    againLabel: request ? `Sign in again to connect ${request.clientName}` : "Sign in again",
    wasSignedIn: session !== undefined,
  }));
}
