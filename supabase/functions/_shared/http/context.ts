import type { RequestIdVariables } from "hono/request-id";
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { ConnectionInfo } from "../platform/runtime.ts";

/** The typed context: `c.env`, what the server says of the connection (none in process); variables read with c.get(...). */
export interface AppEnv {
  Bindings: ConnectionInfo;
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
