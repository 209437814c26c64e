// The shapes of Supabase Auth's e-mail code API as supabase-js 2.109 (auth-js) sends and reads them,
// the part the local auth server serves. Fields supabase-js sends that mean nothing here (a captcha
// token, a PKCE challenge for magic links) are accepted and ignored; unknown fields are dropped, as
// Supabase Auth drops them.
import { z } from "@hono/zod-openapi";
import { isEmailAddress } from "../oauth/sign-in.ts";

const EmailAddress = z
  .string()
  .max(320)
  .transform((email) => email.trim().toLowerCase())
  .refine(isEmailAddress, "Unable to validate email address: invalid format")
  .openapi({ example: "ana@example.com" });

const MetaSecurity = z.object({ captcha_token: z.string().max(4096).optional() }).optional()
  .describe("supabase-js's captcha field; no captcha is asked for here.");

export const OtpRequestSchema = z
  .object({
    email: EmailAddress,
    create_user: z.boolean().default(true).describe("`false` (supabase-js `shouldCreateUser: false`): mail a code only to an address that has a user (422 `otp_disabled` otherwise)."),
    data: z.record(z.string(), z.unknown()).optional()
      .refine((data) => data === undefined || Object.keys(data).length === 0, "user metadata (options.data) is not kept by the local auth server")
      .describe("User metadata for a new user: only `{}` (what supabase-js sends by default)."),
    gotrue_meta_security: MetaSecurity,
    code_challenge: z.string().max(128).nullable().optional(),
    code_challenge_method: z.string().max(16).nullable().optional(),
  })
  .openapi("AuthOtpRequest");

export const OtpSentSchema = z.object({}).openapi("AuthOtpSent");

export const VerifyRequestSchema = z
  .object({
    email: EmailAddress,
    token: z.string().regex(/^\d{6}$/, "the 6-digit code from the mail").openapi({ example: "123456" }),
    type: z.literal("email").describe("Only `email`: the code of signInWithOtp({ email })."),
    gotrue_meta_security: MetaSecurity,
  })
  .openapi("AuthVerifyRequest");

export const RefreshRequestSchema = z
  .object({ refresh_token: z.string().min(1).max(256) })
  .openapi("AuthRefreshRequest");

export const RefreshQuerySchema = z.object({
  grant_type: z.literal("refresh_token").describe("Only `refresh_token`."),
});

export const LogoutQuerySchema = z.object({
  scope: z.enum(["global", "local", "others"]).default("global").describe("`global` (supabase-js's default): every session of the person; `local`: this one; `others`: all but this one."),
});

export const AuthUserSchema = z
  .object({
    id: z.string().uuid().describe("The auth user id (the tokens' `sub`), not the service's 24-hex user id"),
    aud: z.literal("authenticated"),
    role: z.literal("authenticated"),
    email: z.string(),
    phone: z.string(),
    app_metadata: z.object({ provider: z.string(), providers: z.array(z.string()) }),
    user_metadata: z.object({}),
    identities: z.array(z.unknown()),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
    last_sign_in_at: z.string().openapi({ format: "date-time" }),
    is_anonymous: z.literal(false),
  })
  .openapi("AuthUser");

export const AuthSessionSchema = z
  .object({
    access_token: z.string().describe("ES256 JWT with Supabase Auth's claims (iss, sub, aud, exp, role, session_id, email, is_anonymous, ...)"),
    token_type: z.literal("bearer"),
    expires_in: z.number().int(),
    expires_at: z.number().int().describe("Unix time at which the access token expires"),
    refresh_token: z.string().describe("Single use: each refresh returns a new one; presenting a used one again ends the session"),
    user: AuthUserSchema,
  })
  .openapi("AuthSession");

export const JwksSchema = z
  .object({
    keys: z.array(z.object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal("ES256"), use: z.literal("sig") })),
  })
  .openapi("AuthJwks");
