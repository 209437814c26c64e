// npm start: the local database (unless DATABASE_URL is set), migrations, seed, then the gateway.
import { spawn } from "node:child_process";
import process from "node:process";
import { prepareDatabase } from "./db.ts";
import { REPO_ROOT } from "./lib/local-postgres.ts";

const DEMO_API_KEY = "sk_demo0000_local-demo-key-not-secret"; // inserted by supabase/seed.sql

const databaseUrl = await prepareDatabase({ seed: !process.env.DATABASE_URL });
const port = process.env.PORT ?? "54321";
const root = `http://127.0.0.1:${port}`;

const gateway = spawn(process.execPath, ["run", "-A", "scripts/gateway.ts"], {
  cwd: REPO_ROOT,
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, DATABASE_URL: databaseUrl, PORT: port, PUBLIC_API_ROOT: process.env.PUBLIC_API_ROOT ?? root },
});
gateway.stdout!.on("data", (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (chunk.toString().includes("gateway listening")) {
    console.log([
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
  }
});
const stop = () => gateway.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
gateway.on("exit", (code) => process.exit(code ?? 0));
