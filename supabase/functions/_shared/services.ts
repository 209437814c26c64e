import { loadConfig } from "./config.ts";
import { connect, Database } from "./db/database.ts";
import type { AppServices } from "./http/context.ts";
import { runtimeEnvironment, type Environment } from "./platform/runtime.ts";

/** Services of a deployed function, from its environment. */
export function servicesFromEnvironment(env: Environment = runtimeEnvironment()): AppServices {
  const config = loadConfig(env);
  const pool = (max: number) =>
    connect(config.GATEWAY_DATABASE_URL, {
      max,
      prepare: config.DB_PREPARE,
      connectTimeoutSeconds: config.DB_CONNECT_TIMEOUT_SECONDS,
      statementTimeoutSeconds: config.DB_STATEMENT_TIMEOUT_SECONDS,
    });
  // One connection for checking keys not accepted lately (a bad-key flood waits there, alone), and
  // one for asking whether the database answers (db/availability.ts).
  const db = new Database(pool(config.DB_POOL_MAX), pool(1), { probeSql: pool(1), probeTimeoutMs: config.DB_CONNECT_TIMEOUT_SECONDS * 1000 });
  return { config, db };
}
