// npm start: the local database (unless DATABASE_URL is set), migrations, seed, then the gateway,
// all in this one process.
import process from "node:process";
import { ensurePlaces, gatewayDatabaseUrl, prepareDatabase } from "./db.ts";
import { startGateway } from "./gateway.ts";

const DEMO_API_KEY = "sk_demo0000_local-demo-key-not-secret"; // inserted by supabase/seed.sql

const databaseUrl = await prepareDatabase({ seed: true });
const port = process.env.PORT ?? "54321";
const root = `http://${process.env.HOST ?? "127.0.0.1"}:${port}`;
const gateway = await startGateway({
  ...process.env,
  GATEWAY_DATABASE_URL: gatewayDatabaseUrl(databaseUrl),
  PORT: port,
  PUBLIC_API_ROOT: process.env.PUBLIC_API_ROOT ?? root,
});

console.log([
  `gateway listening on ${gateway.url}`,
  "",
  `  API base      ${root}/api/v3`,
  `  Docs          ${root}/api/v3/docs`,
  `  OpenAPI       ${root}/api/v3/openapi`,
  `  Functions     ${root}/functions/v1/<name>`,
  ...(process.env.DATABASE_URL ? [] : [`  Database      ${databaseUrl}`, `  Demo API key  ${DEMO_API_KEY}`]),
  "",
  "  Ctrl-C stops the gateway; the database keeps running until `npm run db:stop`.",
  "",
].join("\n"));

// The places data set takes a few seconds to load the first time; everything but autocomplete
// works meanwhile, and the load commits all at once.
ensurePlaces(databaseUrl).catch((error) => console.error(`[db] loading places failed: ${error instanceof Error ? error.message : error}`));

const stop = async () => {
  await gateway.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
