// A test file's own database (cloned from the migrated template), the API app on it, and fixtures.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { loadConfig, type Config } from "../../supabase/functions/_shared/config.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import type { Environment } from "../../supabase/functions/_shared/platform/runtime.ts";
import { createApiKey, createUser, parsePermissions } from "../../scripts/lib/admin-operations.ts";
import { gatewayUrl, withDatabase } from "../../scripts/lib/local-postgres.ts";

export const TEST_JWT_SECRET = "test-jwt-secret-that-is-long-enough-0123456789";

/** What production requires besides APP_ENV and SECRETS_ENCRYPTION_KEY: mail and the token secret of the MCP sign-in. */
export const PRODUCTION_REQUIREMENTS = {
  SMTP_URL: "smtp://127.0.0.1:2525",
  MAIL_FROM: "Events <no-reply@example.com>",
  MCP_TOKEN_SECRET: "production-token-secret-0123456789-0123456789",
};

export function databaseUrl(name: string): string {
  return withDatabase(inject("serverUrl"), name);
}

/** Creates a database from the migrated template; returns its URL and a function that drops it. */
export async function cloneTemplateDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const server = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
  await server.unsafe(`create database ${name} template ${inject("templateDatabase")}`);
  await server.end();
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      const s = postgres(inject("serverUrl"), { max: 1, onnotice: () => {} });
      await s.unsafe(`drop database if exists ${name} with (force)`);
      await s.end();
    },
  };
}

export interface UserWithKey {
  id: string;
  authUserId: string;
  key: string;
  keyId: string;
  keyPrefix: string;
}

export interface TestContext {
  url: string;
  config: Config;
  /** The app's database: logged in as `api_gateway`, like the deployed service. */
  db: Database;
  /** The same database as its owner, for the admin operations (scripts/lib/admin-operations.ts). */
  adminDb: Database;
  /** The database owner, for arranging and inspecting state behind the API's back. */
  owner: postgres.Sql;
  app: ReturnType<typeof createApiApp>;
  /** Calls the app in-process; `key` becomes the x-api-key header, `json` the body. */
  call(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  userWithKey(permissions?: string[], profile?: { email?: string; username?: string }): Promise<UserWithKey>;
  close(): Promise<void>;
}

/**
 * What the server hands the app about a connection from `address` (Deno.serve's handler info, Hono's
 * `c.env`): in process there is no socket, so tests say where a request comes from this way.
 */
export const connectionFrom = (address: string) => ({ remoteAddr: { hostname: address, port: 50_000, transport: "tcp" as const } });

export async function createTestContext(env: Environment = {}): Promise<TestContext> {
  const database = await cloneTemplateDatabase();
  const config = loadConfig({
    GATEWAY_DATABASE_URL: gatewayUrl(database.url), APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET, DB_POOL_MAX: "5",
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    // The suites sign one person in again within seconds; the sign-in limit suites set their own interval.
    MCP_SIGN_IN_RESEND_SECONDS: "1",
    ...env,
  });
  const db = new Database(
    connect(config.GATEWAY_DATABASE_URL, { max: config.DB_POOL_MAX, prepare: true }),
    connect(config.GATEWAY_DATABASE_URL, { max: 1, prepare: true }),
  );
  const adminDb = new Database(connect(database.url, { max: 2, prepare: true }));
  const owner = postgres(database.url, { max: 2, onnotice: () => {} });
  const app = createApiApp({ config, db });
  return {
    url: database.url,
    config,
    db,
    adminDb,
    owner,
    app,
    async call(path, init = {}) {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set("x-api-key", key);
      if (json !== undefined) headers.set("content-type", "application/json");
      return app.request(path, { ...rest, headers, body: json === undefined ? rest.body : JSON.stringify(json) });
    },
    async userWithKey(permissions = [], profile = {}) {
      const user = await createUser(adminDb, profile);
      const key = await createApiKey(adminDb, { userId: user.id, name: "test key", permissions: parsePermissions(permissions) });
      return { id: user.id, authUserId: user.authUserId, key: key.key, keyId: key.id, keyPrefix: key.prefix };
    },
    async close() {
      await db.close();
      await adminDb.close();
      await owner.end();
      await database.drop();
    },
  };
}

/**
 * The rate limits count in fixed one-minute windows (core.take_rate_limit): when less than
 * `marginMs` is left of the current one, waits for the next, so that the calls which follow count in
 * one window and a test can expect exactly where the limit refuses.
 */
export async function startOfRateLimitWindow(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** Asserts the one error body and returns it. */
export async function expectErrorBody(response: Response, status: number, code: string) {
  const body = await response.json();
  if (response.status !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(body)}`);
  }
  for (const field of ["message", "timestamp", "request_id"]) {
    if (typeof body[field] !== "string") throw new Error(`error body lacks ${field}: ${JSON.stringify(body)}`);
  }
  if (body.error !== true) throw new Error(`error body has error=${body.error}`);
  return body;
}
