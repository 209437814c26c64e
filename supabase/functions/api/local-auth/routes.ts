// The local auth server's routes: the part of Supabase Auth's API (/auth/v1) that supabase-js's
// e-mail code sign-in uses. Served only with LOCAL_AUTH_ENABLED; the shapes are
// _shared/app-auth/schemas.ts.
import { createRoute } from "@hono/zod-openapi";
import {
  AuthSessionSchema, AuthUserSchema, JwksSchema, LogoutQuerySchema, OtpRequestSchema, OtpSentSchema, RefreshQuerySchema, RefreshRequestSchema, VerifyRequestSchema,
} from "../../_shared/app-auth/schemas.ts";
import { ErrorBodySchema, errorResponses, requestLimitResponses } from "../../_shared/http/errors.ts";
import { jsonContent } from "../../_shared/http/openapi.ts";

/** The one tag of the local auth server's own document (/auth/v1/openapi.json, local-auth/handlers.ts). */
export const LOCAL_AUTH_TAG = {
  name: "Local auth (Supabase Auth stand-in)",
  description: "The local development stand-in for Supabase Auth's e-mail code sign-in (/auth/v1); served only with LOCAL_AUTH_ENABLED.",
};
const TAG = LOCAL_AUTH_TAG.name;
const sessionSecurity = [{ SessionAuth: [] }];
const errorBody = (description: string) => ({ description, ...jsonContent(ErrorBodySchema) });

export const requestCode = createRoute({
  operationId: "requestLocalAuthCode",
  method: "post",
  path: "/auth/v1/otp",
  tags: [TAG],
  summary: "Mail a sign-in code (supabase-js auth.signInWithOtp({ email }))",
  security: [],
  description:
    "Mails a 6-digit code to the address; it works once, for MCP_SIGN_IN_CODE_SECONDS, and a new code from the same client ends " +
    "that client's earlier one. An address gets one code per MCP_SIGN_IN_RESEND_SECONDS, whoever asks; codes are limited per " +
    "address and client and per client, never per address alone (429 `over_email_send_rate_limit` with Retry-After), and none " +
    "is sent once the address took MCP_SIGN_IN_WRONG_CODES_PER_DAY wrong codes in a day. " +
    "The codes, their limits and the mail are those of the public MCP endpoint's sign-in pages. The local auth server runs only " +
    "with LOCAL_AUTH_ENABLED (npm start); on a Supabase project this is Supabase Auth's own route.",
  request: { body: { required: true, ...jsonContent(OtpRequestSchema) } },
  responses: {
    200: { description: "The code was mailed (an empty object, as Supabase Auth answers)", ...jsonContent(OtpSentSchema) },
    422: errorBody("`create_user: false` and no user has the address (code `otp_disabled`)"),
    ...errorResponses(400, 429),
  },
});

export const verifyCode = createRoute({
  operationId: "verifyLocalAuthCode",
  method: "post",
  path: "/auth/v1/verify",
  tags: [TAG],
  summary: "Sign in with the mailed code (supabase-js auth.verifyOtp({ email, token, type: 'email' }))",
  security: [],
  description:
    "Spends the address's live code (the newest this client asked for, else the address's newest) and starts a session. A wrong, " +
    "spent or expired code answers 403 `otp_expired` and counts against the code's tries (MCP_SIGN_IN_MAX_ATTEMPTS), after which " +
    "even the right code fails; past MCP_SIGN_IN_WRONG_CODES_PER_DAY wrong codes for the address in a day, or the tries per IP, " +
    "every try answers 429 `over_request_rate_limit` with Retry-After. The user with that address is made on first sign-in.",
  request: { body: { required: true, ...jsonContent(VerifyRequestSchema) } },
  responses: {
    200: { description: "The new session", ...jsonContent(AuthSessionSchema) },
    403: errorBody("Wrong, spent or expired code (code `otp_expired`)"),
    ...errorResponses(400, 429),
  },
});

export const refresh = createRoute({
  operationId: "refreshLocalAuthSession",
  method: "post",
  path: "/auth/v1/token",
  tags: [TAG],
  summary: "Refresh the session (supabase-js auth.refreshSession, and its automatic refresh)",
  security: [],
  description:
    "Exchanges the refresh token for a new access token and a new refresh token. A refresh token works once: presenting a used " +
    "one again ends the whole session (400 `refresh_token_already_used`); an unknown, expired or signed-out one answers 400 " +
    "`refresh_token_not_found`.",
  request: { query: RefreshQuerySchema, body: { required: true, ...jsonContent(RefreshRequestSchema) } },
  responses: {
    200: { description: "The refreshed session", ...jsonContent(AuthSessionSchema) },
    ...errorResponses(400),
  },
});

export const currentUser = createRoute({
  operationId: "getLocalAuthUser",
  method: "get",
  path: "/auth/v1/user",
  tags: [TAG],
  summary: "The signed-in user (supabase-js auth.getUser())",
  description: "The user of the access token in `Authorization: Bearer`, as long as its session has not ended.",
  security: sessionSecurity,
  responses: {
    200: { description: "The user of the session", ...jsonContent(AuthUserSchema) },
    403: errorBody("The session has ended: signed out, or its refresh token was reused (code `session_not_found`)"),
    ...errorResponses(401),
  },
});

export const logout = createRoute({
  operationId: "logoutLocalAuthSession",
  method: "post",
  path: "/auth/v1/logout",
  tags: [TAG],
  summary: "Sign out (supabase-js auth.signOut())",
  description:
    "Ends sessions: their refresh tokens stop working at once. Access tokens already handed out stay valid until they expire " +
    "(LOCAL_AUTH_ACCESS_TOKEN_SECONDS), as Supabase Auth's do.",
  security: sessionSecurity,
  request: { query: LogoutQuerySchema },
  responses: {
    204: { description: "Signed out" },
    ...errorResponses(400, 401),
  },
});

export const jwks = createRoute({
  operationId: "getLocalAuthJwks",
  method: "get",
  path: "/auth/v1/.well-known/jwks.json",
  tags: [TAG],
  summary: "The public key of the access tokens (supabase-js auth.getClaims())",
  description: "The JWK set a client verifies access tokens with, without a call per token.",
  security: [],
  responses: {
    200: { description: "A JWK set with the ES256 key", ...jsonContent(JwksSchema) },
    ...requestLimitResponses(),
  },
});
