import type { RequestIdVariables } from "hono/request-id";
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";

/** Typed context variables every handler can read with c.get(...). */
export interface AppEnv {
  Variables: RequestIdVariables & {
    config: Config;
    db: Database;
    principal: Principal;
  };
}

/** Services an app is built with; tests pass their own database. */
export interface AppServices {
  config: Config;
  db: Database;
}
