import { loadConfig } from "./config.ts";
import { connect, Database } from "./db/database.ts";
import type { AppServices } from "./http/context.ts";
import { runtimeEnvironment, type Environment } from "./platform/runtime.ts";

/** Services of a deployed function, from its environment. */
export function servicesFromEnvironment(env: Environment = runtimeEnvironment()): AppServices {
  const config = loadConfig(env);
  return { config, db: new Database(connect(config.GATEWAY_DATABASE_URL, { max: config.DB_POOL_MAX, prepare: config.DB_PREPARE })) };
}
