// The public MCP endpoint's OAuth 2.1 authorization server: metadata (RFC 9728, RFC 8414),
// authorize with PKCE S256 and resource indicators (RFC 8707), sign-in by e-mail code, consent,
// token (authorization_code, refresh_token with rotation), revocation (RFC 7009), dynamic
// registration (RFC 7591), the person's grants page and sign-out. The rules that must hold under
// concurrency (a code redeemed once, a refresh token rotated once, reuse revoking the grant) are
// decided in Postgres under row locks; _shared/oauth/ checks input and signs tokens, and the files
// here turn requests into its calls and its answers into pages, redirects and JSON.
import { createRouter } from "../../_shared/http/app.ts";
import { authorize, consent, decide } from "./authorize.ts";
import { authorizationServer, authorizationServerAtIssuerPath, jwks, openIdConfiguration, protectedResource } from "./discovery.ts";
import { grants, revokeGrantFromPage } from "./grants-page.ts";
import { requestSignInCode, signOut, signOutForm, verifySignInCode } from "./sign-in.ts";
import { register, revoke, token } from "./tokens.ts";

// Not in the OpenAPI document: OAuth clients discover these routes through the metadata.
export const oauthRouter = createRouter();

oauthRouter.get("/.well-known/oauth-protected-resource/mcp", protectedResource);
oauthRouter.get("/.well-known/oauth-protected-resource", protectedResource);
oauthRouter.get("/.well-known/oauth-authorization-server", authorizationServer);
oauthRouter.get("/.well-known/oauth-authorization-server/*", authorizationServerAtIssuerPath);
oauthRouter.get("/.well-known/openid-configuration", openIdConfiguration);
oauthRouter.get("/oauth/jwks.json", jwks);
oauthRouter.get("/oauth/authorize", authorize);
oauthRouter.get("/oauth/consent", consent);
oauthRouter.post("/oauth/sign-in", requestSignInCode);
oauthRouter.post("/oauth/sign-in/verify", verifySignInCode);
oauthRouter.post("/oauth/consent", decide);
oauthRouter.post("/oauth/token", token);
oauthRouter.post("/oauth/revoke", revoke);
oauthRouter.post("/oauth/register", register);
oauthRouter.get("/oauth/grants", grants);
oauthRouter.post("/oauth/grants/revoke", revokeGrantFromPage);
oauthRouter.get("/oauth/sign-out", signOutForm);
oauthRouter.post("/oauth/sign-out", signOut);
