import { z } from "zod";
import type { Environment } from "./platform/runtime.ts";

const commaList = z
  .string()
  .transform((s) => s.split(",").map((v) => v.trim()).filter(Boolean));

const optionalUrl = z.string().url().optional();

/** Every environment variable the service reads. README.md lists the same set. */
const configSchema = z.object({
  // The service's own connection: the `api_gateway` login role, which cannot bypass RLS and can
  // only switch to the request roles (migration 20261123000100_login_role.sql, README Deployment).
  GATEWAY_DATABASE_URL: z.string().min(1),
  // About twice the database's CPU cores: connections beyond that only add context switches (see
  // README, Performance). A remote database, where round trips dominate, wants more.
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(4),
  // Supabase's transaction pooler (port 6543) cannot keep prepared statements.
  DB_PREPARE: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  APP_ENV: z.enum(["development", "test", "production"]).default("development"),
  // Without a trailing slash, so every link can append `/api/...`.
  PUBLIC_API_ROOT: z.string().url().default("http://127.0.0.1:54321").transform((root) => root.replace(/\/+$/, "")),
  CORS_ALLOWED_ORIGINS: commaList.default(["*"]),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  JWT_SECRET: z.string().min(32).optional(),
  JWT_JWKS_URL: optionalUrl,
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().default("authenticated"),
  SIWE_DOMAINS: commaList.default(["localhost:54321", "127.0.0.1:54321"]),
  ENABLE_BENCH_ROUTES: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  // Venue autocomplete: the project's own places table (postgres) or a Photon / Nominatim server.
  GEOCODER_PROVIDER: z.enum(["postgres", "photon", "nominatim"]).default("postgres"),
  GEOCODER_URL: optionalUrl,
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  // The local gateway only (Deno.serve has no such timeout; Supabase's front serves a deployment):
  // how long a connection may wait for a complete request head, after it opens and after each
  // response. 0 serves with Deno.serve alone: no such timeout, and no relay in front (see runtime.ts).
  HEADER_TIMEOUT_MS: z.coerce.number().int().refine((ms) => ms === 0 || (ms >= 100 && ms <= 600_000), "0, or 100 to 600000")
    .default(10_000),
}).superRefine((config, ctx) => {
  if (config.APP_ENV === "production" && config.ENABLE_BENCH_ROUTES) {
    ctx.addIssue({ code: "custom", path: ["ENABLE_BENCH_ROUTES"], message: "the benchmark routes are never served in production" });
  }
  if (config.GEOCODER_PROVIDER !== "postgres" && !config.GEOCODER_URL) {
    ctx.addIssue({ code: "custom", path: ["GEOCODER_URL"], message: `required when GEOCODER_PROVIDER is ${config.GEOCODER_PROVIDER}` });
  }
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Environment): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
