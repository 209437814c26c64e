// The local auth server on /auth/v1 (LOCAL_AUTH_ENABLED): Supabase Auth's e-mail code sign-in,
// refresh, user and sign-out, as supabase-js calls them, over _shared/app-auth/sessions.ts. Errors
// are the one error body; the response header X-Supabase-Api-Version tells supabase-js to read its
// `code` (Supabase Auth's codes: otp_expired, refresh_token_already_used, ...) as the error's code.
import type { Context } from "hono";
import {
  type LocalIssuer, localIssuerOf, localJwks, mailSignInCodeTo, refreshSession, sessionIdOf, signInWithCode, signOut, userOfSession,
} from "../../_shared/app-auth/sessions.ts";
import { createRouter } from "../../_shared/http/app.ts";
import { clientAddress } from "../../_shared/http/client-address.ts";
import { withDerivedErrorResponses } from "../../_shared/http/errors.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { apiUrl } from "../../_shared/http/public-urls.ts";
import { currentUser, jwks, LOCAL_AUTH_TAG, logout, refresh, requestCode, verifyCode } from "./routes.ts";

/** The API version whose error bodies supabase-js reads `code` from (auth-js's API_VERSIONS). */
const SUPABASE_AUTH_API_VERSION = "2024-01-01";

// Mounted only when the server is on (api/app.ts), so the issuer is always there.
const issuerOf = (c: Context<AppEnv>): LocalIssuer => localIssuerOf(c.get("config"))!;

export const localAuthRouter = createRouter();

localAuthRouter.use("/auth/v1/*", async (c, next) => {
  await next();
  c.res.headers.set("X-Supabase-Api-Version", SUPABASE_AUTH_API_VERSION);
});

localAuthRouter.openapi(requestCode, async (c) => {
  const { email, create_user } = c.req.valid("json");
  await mailSignInCodeTo(c.get("db"), c.get("config"), { email, createUser: create_user, ip: clientAddress(c) });
  return c.json({}, 200);
});

localAuthRouter.openapi(verifyCode, async (c) => {
  const { email, token } = c.req.valid("json");
  return c.json(await signInWithCode(c.get("db"), c.get("config"), issuerOf(c), { email, code: token, ip: clientAddress(c) }), 200);
});

localAuthRouter.openapi(refresh, async (c) => {
  return c.json(await refreshSession(c.get("db"), issuerOf(c), c.req.valid("json").refresh_token), 200);
});

localAuthRouter.openapi(currentUser, async (c) => {
  const sessionId = await sessionIdOf(issuerOf(c), c.req.header("authorization"));
  return c.json(await userOfSession(c.get("db"), sessionId), 200);
});

localAuthRouter.openapi(logout, async (c) => {
  const sessionId = await sessionIdOf(issuerOf(c), c.req.header("authorization"));
  await signOut(c.get("db"), sessionId, c.req.valid("query").scope);
  return c.body(null, 204);
});

localAuthRouter.openapi(jwks, (c) => c.json(localJwks(issuerOf(c)), 200, { "Cache-Control": "public, max-age=600" }));

localAuthRouter.openAPIRegistry.registerComponent("securitySchemes", "SessionAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The access token of a session (Authorization: Bearer <access_token>), as verify or refresh gave it.",
});

// Its own document, not the integrator's: a development stand-in for Supabase Auth, which a deployment does not serve.
localAuthRouter.get("/auth/v1/openapi.json", (c) => {
  const root = c.get("config").PUBLIC_API_ROOT;
  const reference = `${root.replace(/\/+$/, "")}/api/v3/docs`;
  return c.json(withDerivedErrorResponses(localAuthRouter.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Local auth server (Supabase Auth stand-in)",
      version: "1.0.0",
      description: "The part of Supabase Auth's API (/auth/v1) that supabase-js's e-mail code sign-in uses, served by the api function " +
        "with LOCAL_AUTH_ENABLED for local development. A deployment signs people in with Supabase Auth itself.",
      license: { name: "Proprietary", url: reference },
      contact: { name: "API reference and support", url: reference },
    },
    tags: [LOCAL_AUTH_TAG],
    servers: [{ url: apiUrl({ PUBLIC_API_ROOT: root }, ""), description: "The api function" }],
  })));
});
