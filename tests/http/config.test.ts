// The service's configuration: what loadConfig refuses and what it normalises.
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_ENCRYPTION_KEY, DEVELOPMENT_TOKEN_SECRET, loadConfig } from "../../supabase/functions/_shared/config.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { PRODUCTION_REQUIREMENTS } from "../setup/test-context.ts";

const GATEWAY_DATABASE_URL = "postgres://postgres:postgres@127.0.0.1:54322/postgres";

describe("configuration", () => {
  it("refuses the benchmark routes in production, and allows them elsewhere", () => {
    expect(() => loadConfig({ GATEWAY_DATABASE_URL, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production", ENABLE_BENCH_ROUTES: "true" })).toThrow(/ENABLE_BENCH_ROUTES/);
    expect(loadConfig({ GATEWAY_DATABASE_URL, APP_ENV: "development", ENABLE_BENCH_ROUTES: "true" }).ENABLE_BENCH_ROUTES).toBe(true);
    const SECRETS_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString("base64");
    expect(loadConfig({ GATEWAY_DATABASE_URL, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production", SECRETS_ENCRYPTION_KEY }).ENABLE_BENCH_ROUTES).toBe(false);
  });

  it("refuses the published development secrets in production, each by name", () => {
    const own = { SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"), MCP_TOKEN_SECRET: "a-secret-of-our-own-0123456789-0123456789" };
    const production = { GATEWAY_DATABASE_URL, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production", ...own };
    expect(() => loadConfig({ ...production, SECRETS_ENCRYPTION_KEY: DEVELOPMENT_ENCRYPTION_KEY })).toThrow(/SECRETS_ENCRYPTION_KEY: the published development value/);
    expect(() => loadConfig({ ...production, MCP_TOKEN_SECRET: DEVELOPMENT_TOKEN_SECRET })).toThrow(/MCP_TOKEN_SECRET: the published development value/);
    expect(loadConfig(production).APP_ENV).toBe("production");
    expect(loadConfig({ GATEWAY_DATABASE_URL, APP_ENV: "development", SECRETS_ENCRYPTION_KEY: DEVELOPMENT_ENCRYPTION_KEY, MCP_TOKEN_SECRET: DEVELOPMENT_TOKEN_SECRET }).APP_ENV)
      .toBe("development");
  });

  it("keeps PUBLIC_API_ROOT without a trailing slash, so links append /api/... cleanly", () => {
    expect(loadConfig({ GATEWAY_DATABASE_URL, PUBLIC_API_ROOT: "https://x.supabase.co/functions/v1/" }).PUBLIC_API_ROOT)
      .toBe("https://x.supabase.co/functions/v1");
    expect(loadConfig({ GATEWAY_DATABASE_URL }).PUBLIC_API_ROOT).toBe("http://127.0.0.1:54321");
  });

  it("the local auth server is off unless LOCAL_AUTH_ENABLED, which needs a valid ES256 signing key", async () => {
    expect(loadConfig({ GATEWAY_DATABASE_URL }).LOCAL_AUTH_ENABLED).toBe(false);
    expect(loadConfig({ GATEWAY_DATABASE_URL, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production", SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") })
      .LOCAL_AUTH_ENABLED).toBe(false);
    expect(() => loadConfig({ GATEWAY_DATABASE_URL, LOCAL_AUTH_ENABLED: "true" })).toThrow(/LOCAL_AUTH_SIGNING_KEY: required when LOCAL_AUTH_ENABLED/);
    const key = JSON.parse(await generateLocalAuthSigningKey());
    expect(loadConfig({ GATEWAY_DATABASE_URL, LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: JSON.stringify(key) }).LOCAL_AUTH_SIGNING_KEY?.kid).toBe(key.kid);
    const other = JSON.parse(await generateLocalAuthSigningKey());
    for (const [wrong, problem] of [
      [{ ...key, d: other.d }, /d does not match/],
      [{ ...key, kty: "OKP" }, /not a P-256 key/],
      [{ ...key, kid: undefined }, /no kid/],
      [{ ...key, alg: "RS256" }, /not ES256/],
    ] as const) {
      expect(() => loadConfig({ GATEWAY_DATABASE_URL, LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: JSON.stringify(wrong) })).toThrow(problem);
    }
  });

  it("HEADER_TIMEOUT_MS is 10 s by default, 0 (no guard) or 100 ms to 10 minutes", () => {
    expect(loadConfig({ GATEWAY_DATABASE_URL }).HEADER_TIMEOUT_MS).toBe(10_000);
    expect(loadConfig({ GATEWAY_DATABASE_URL, HEADER_TIMEOUT_MS: "0" }).HEADER_TIMEOUT_MS).toBe(0);
    for (const refused of ["50", "-1", "600001", "soon"]) {
      expect(() => loadConfig({ GATEWAY_DATABASE_URL, HEADER_TIMEOUT_MS: refused }), refused).toThrow(/HEADER_TIMEOUT_MS/);
    }
  });
});
