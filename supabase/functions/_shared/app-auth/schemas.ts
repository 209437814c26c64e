// The shapes of Supabase Auth's e-mail code API as supabase-js 2.109 (auth-js) sends and reads them,
// the part the local auth server serves. Fields supabase-js sends that mean nothing here (a captcha
// token, a PKCE challenge for magic links) are accepted and ignored; unknown fields are dropped, as
// Supabase Auth drops them.
import { z } from "@hono/zod-openapi";
import { CreatedAt, Timestamp, UpdatedAt } from "../http/openapi.ts";
import { isEmailAddress } from "../oauth/sign-in.ts";

const EmailAddress = z
  .string()
  .max(320)
  .transform((email) => email.trim().toLowerCase())
  .refine(isEmailAddress, "Unable to validate email address: invalid format")
  .openapi({ example: "ana@example.com" })
  .describe("The person's e-mail address (trimmed and lower-cased)");

const MetaSecurity = z.object({ captcha_token: z.string().max(4096).optional().describe("Accepted and ignored") }).optional()
  .describe("supabase-js's captcha field; no captcha is asked for here.");

export const OtpRequestSchema = z
  .object({
    email: EmailAddress,
    create_user: z.boolean().default(true).describe("`false` (supabase-js `shouldCreateUser: false`): mail a code only to an address that has a user (422 `otp_disabled` otherwise)."),
    data: z.record(z.string(), z.unknown()).optional()
      .refine((data) => data === undefined || Object.keys(data).length === 0, "user metadata (options.data) is not kept by the local auth server")
      .describe("User metadata for a new user: only `{}` (what supabase-js sends by default)."),
    gotrue_meta_security: MetaSecurity,
    code_challenge: z.string().max(128).nullable().optional().describe("supabase-js's PKCE field; the e-mail code flow does not use it"),
    code_challenge_method: z.string().max(16).nullable().optional().describe("supabase-js's PKCE field; the e-mail code flow does not use it"),
  })
  .openapi("AuthOtpRequest")
  .describe("Mail a 6-digit sign-in code");

export const OtpSentSchema = z.object({}).openapi("AuthOtpSent").describe("Empty: the code was mailed");

export const VerifyRequestSchema = z
  .object({
    email: EmailAddress,
    token: z.string().regex(/^\d{6}$/, "the 6-digit code from the mail").openapi({ example: "123456" }).describe("The 6-digit code from the mail"),
    type: z.literal("email").describe("Only `email`: the code of signInWithOtp({ email })."),
    gotrue_meta_security: MetaSecurity,
  })
  .openapi("AuthVerifyRequest")
  .describe("Sign in with the mailed code");

export const RefreshRequestSchema = z
  .object({ refresh_token: z.string().min(1).max(256).describe("The session's latest refresh token (each is single use)") })
  .openapi("AuthRefreshRequest")
  .describe("A refresh token to exchange for a new session");

export const RefreshQuerySchema = z.object({
  grant_type: z.literal("refresh_token").describe("Only `refresh_token`."),
});

export const LogoutQuerySchema = z.object({
  scope: z.enum(["global", "local", "others"]).default("global").describe("`global` (supabase-js's default): every session of the person; `local`: this one; `others`: all but this one."),
});

export const AuthUserSchema = z
  .object({
    id: z.string().uuid().describe("The auth user id (the tokens' `sub`), not the service's 24-hex user id"),
    aud: z.literal("authenticated").describe("The tokens' audience"),
    role: z.literal("authenticated").describe("The database role requests run as"),
    email: z.string().describe("The e-mail address signed in with"),
    phone: z.string().describe("Always empty: no phone sign-in"),
    app_metadata: z.object({
      provider: z.string().describe("How the person signed in: `email`"),
      providers: z.array(z.string()).describe("Every way the person has signed in"),
    }).describe("Set by the auth server"),
    user_metadata: z.object({}).describe("Always empty: user metadata is not kept"),
    identities: z.array(z.unknown()).describe("Always empty: no third-party identities"),
    created_at: CreatedAt,
    updated_at: UpdatedAt,
    last_sign_in_at: Timestamp.describe("The latest sign-in (UTC)"),
    is_anonymous: z.literal(false).describe("Always false: no anonymous sign-in"),
  })
  .openapi("AuthUser")
  .describe("The signed-in auth user, in Supabase Auth's shape");

export const AuthSessionSchema = z
  .object({
    access_token: z.string().describe("ES256 JWT with Supabase Auth's claims (iss, sub, aud, exp, role, session_id, email, is_anonymous, ...)"),
    token_type: z.literal("bearer").describe("Send the access token as `Authorization: Bearer <access_token>`"),
    expires_in: z.number().int().describe("Seconds until the access token expires"),
    expires_at: z.number().int().describe("Unix time at which the access token expires"),
    refresh_token: z.string().describe("Single use: each refresh returns a new one; presenting a used one again ends the session"),
    user: AuthUserSchema,
  })
  .openapi("AuthSession")
  .describe("A session, in Supabase Auth's shape");

export const JwksSchema = z
  .object({
    keys: z.array(z.object({
      kty: z.literal("EC").describe("Key type: elliptic curve"),
      crv: z.literal("P-256").describe("The curve"),
      x: z.string().describe("The public point's x coordinate (base64url)"),
      y: z.string().describe("The public point's y coordinate (base64url)"),
      kid: z.string().describe("The key's id, as in the access tokens' header"),
      alg: z.literal("ES256").describe("The signing algorithm"),
      use: z.literal("sig").describe("Signatures only"),
    }).describe("A public key that verifies access tokens")).describe("The keys, current first"),
  })
  .openapi("AuthJwks")
  .describe("The public keys that verify the local auth server's access tokens (a JWK Set)");
