// npm run db:start | db:stop | db:reset | db:migrate | db:places [-- status]
// With DATABASE_URL set, only `migrate`, `places` and `status` apply, to that database; nothing is started.
import process from "node:process";
import postgres from "postgres";
import {
  destroyCluster, enableLocalGatewayLogin, gatewayUrl, isRunning, LOCAL_DATABASE_URL, startCluster, stopCluster,
} from "./lib/local-postgres.ts";
import { migrate } from "./lib/migrations.ts";
import { loadPlaces } from "./lib/places.ts";

/**
 * Starts (when needed) the database the service uses and applies pending migrations. The seed (with
 * its published demo key) goes only into the local cluster, never into a DATABASE_URL database.
 */
export async function prepareDatabase(options: { seed: boolean }): Promise<string> {
  const external = process.env.DATABASE_URL;
  if (!external) startCluster();
  const url = external ?? LOCAL_DATABASE_URL;
  const applied = await migrate(url, { seed: options.seed && !external });
  if (applied.length > 0) process.stderr.write(`[db] applied migrations ${applied.join(", ")}\n`);
  if (!external) await enableLocalGatewayLogin(url);
  return url;
}

/**
 * The service's own connection (GATEWAY_DATABASE_URL): as set, or `api_gateway` on the local
 * cluster. A DATABASE_URL database has its own api_gateway password, which only its operator knows.
 */
export function gatewayDatabaseUrl(ownerUrl: string): string {
  const configured = process.env.GATEWAY_DATABASE_URL;
  if (configured) return configured;
  if (process.env.DATABASE_URL) {
    throw new Error("DATABASE_URL is set, so GATEWAY_DATABASE_URL must be too: the api_gateway login of that database (docs/deployment.md)");
  }
  return gatewayUrl(ownerUrl);
}

/** Venue autocomplete's open data set, once: a table that has rows is left alone. */
export async function ensurePlaces(url: string): Promise<void> {
  const places = await loadPlaces(url, { ifEmpty: true });
  if (!places.skipped) process.stderr.write(`[db] loaded ${places.loaded} places in ${places.seconds.toFixed(1)} s\n`);
}

async function main(command: string | undefined) {
  switch (command) {
    case "start":
      await ensurePlaces(await prepareDatabase({ seed: true }));
      console.log(`PostgreSQL ready: ${process.env.DATABASE_URL ? "DATABASE_URL" : LOCAL_DATABASE_URL}`);
      return;
    case "ensure":
      // npm test: packages installed and the cluster running; tests make their own databases.
      if (!process.env.DATABASE_URL) startCluster();
      return;
    case "migrate":
      await ensurePlaces(await prepareDatabase({ seed: false }));
      return;
    case "places": {
      // (Re)loads the places data set, e.g. into a Supabase project: DATABASE_URL, else the local cluster.
      if (!process.env.DATABASE_URL) startCluster();
      const url = process.env.DATABASE_URL ?? LOCAL_DATABASE_URL;
      const places = await loadPlaces(url);
      console.log(`loaded ${places.loaded} places in ${places.seconds.toFixed(1)} s`);
      return;
    }
    case "stop":
      console.log(stopCluster() ? "stopped" : "not running");
      return;
    case "reset":
      if (process.env.DATABASE_URL) throw new Error("db:reset only resets the local cluster; unset DATABASE_URL");
      destroyCluster();
      await ensurePlaces(await prepareDatabase({ seed: true }));
      console.log("local database reset: migrations and seed applied");
      return;
    case "status": {
      const running = !process.env.DATABASE_URL && isRunning();
      const sql = postgres(process.env.DATABASE_URL ?? LOCAL_DATABASE_URL, { max: 1, connect_timeout: 3 });
      const versions = await sql`select version, name from supabase_migrations.schema_migrations order by version`
        .catch(() => []);
      await sql.end();
      console.log(JSON.stringify({ localClusterRunning: running, migrations: versions }, null, 2));
      return;
    }
    default:
      throw new Error("usage: db.ts start|stop|reset|migrate|places|status|ensure");
  }
}

if (import.meta.main) {
  main(process.argv[2]).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
