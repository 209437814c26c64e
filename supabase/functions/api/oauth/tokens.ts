// The endpoints OAuth clients call directly: token (POST /oauth/token), revocation (POST
// /oauth/revoke) and dynamic registration (POST /oauth/register). The domain decides
// (_shared/oauth/tokens.ts, clients.ts); here its OAuthError becomes RFC 6749 5.2's body.
import { clientAddress } from "../../_shared/http/client-address.ts";
import { registerClient } from "../../_shared/oauth/clients.ts";
import { OAuthError } from "../../_shared/oauth/errors.ts";
import { exchangeToken, revokeToken } from "../../_shared/oauth/tokens.ts";
import { type C, form, one } from "./http.ts";

/** RFC 6749 5.2's body, with the service's own error fields beside it. */
function oauthError(c: C, error: OAuthError): Response {
  return c.json({
    error: error.error,
    error_description: error.description,
    code: error.error,
    message: error.description,
    timestamp: new Date().toISOString(),
    request_id: c.get("requestId") ?? "unknown",
  }, error.status, { "Cache-Control": "no-store", ...error.headers });
}

/** The OAuthError the domain threw as its answer; any other error goes on to the error handler. */
async function answering(c: C, respond: () => Promise<Response>): Promise<Response> {
  try {
    return await respond();
  } catch (error) {
    if (error instanceof OAuthError) return oauthError(c, error);
    throw error;
  }
}

export function token(c: C): Promise<Response> {
  return answering(c, async () => {
    if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header("content-type") ?? "")) {
      throw new OAuthError(400, "invalid_request", "send the token request as application/x-www-form-urlencoded");
    }
    const body = await form(c);
    const tokens = await exchangeToken(c.get("db"), c.get("config"), {
      grantType: one(body.grant_type),
      clientId: one(body.client_id),
      resource: one(body.resource),
      code: one(body.code),
      redirectUri: one(body.redirect_uri),
      codeVerifier: one(body.code_verifier),
      refreshToken: one(body.refresh_token),
      scope: one(body.scope),
    });
    return c.json(tokens, 200, { "Cache-Control": "no-store", Pragma: "no-cache" });
  });
}

export function revoke(c: C): Promise<Response> {
  return answering(c, async () => {
    const body = await form(c);
    await revokeToken(c.get("db"), c.get("config"), { token: one(body.token), clientId: one(body.client_id) });
    return c.body(null, 200, { "Cache-Control": "no-store" });
  });
}

export function register(c: C): Promise<Response> {
  return answering(c, async () => {
    const metadata: unknown = await c.req.json().catch(() => null);
    const client = await registerClient(c.get("db"), c.get("config"), metadata, clientAddress(c));
    return c.json(client, 201, { "Cache-Control": "no-store" });
  });
}
