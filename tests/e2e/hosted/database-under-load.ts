// Run by Deno with a function's deno.json as its configuration and no node_modules, the way Supabase
// runs a function: `postgres` is then the package as published (not patches/postgres+3.4.9.patch).
// Keeps the service's Database busy (transactions of requests and of background jobs, new connections
// opening) on the database URL it is given until stdin closes, printing every 250 ms how many
// transactions were answered and how many refused.
import process from "node:process";
import { connect, Database, type Tx } from "../../../supabase/functions/_shared/db/database.ts";
import { serviceJobs } from "../../../supabase/functions/_shared/db/service-jobs.ts";

const url = process.argv[2]!;
const db = new Database(connect(url, { max: 4, prepare: true, connectTimeoutSeconds: 2 }), connect(url, { max: 1, prepare: true }), {
  probeSql: connect(url, { max: 1, prepare: true }),
  acquireTimeoutMs: 2_000,
});
const counts = { answered: 0, refused: 0 };
let running = true;
const work = async (tx: Tx) => {
  await tx`select pg_sleep(0.002)`;
  await tx`select 1`;
};
// Half as a request (a principal's transaction), half as a background job; or, with `postgres-begin`,
// all through postgres.js's own begin(), which the service does not use (the last-resort listeners).
const transactions = process.argv[3] === "postgres-begin"
  ? [() => db.sql.begin((tx) => work(tx as unknown as Tx))]
  : [
    () => db.transaction({ kind: "claims", role: "authenticated", claims: {} }, work),
    () => serviceJobs(db).transaction(work),
  ];
const loads = Array.from({ length: 12 }, async (_, loop) => {
  while (running) {
    try {
      await transactions[loop % transactions.length]!();
      counts.answered++;
    } catch {
      counts.refused++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});
const report = setInterval(() => console.log(JSON.stringify(counts)), 250);
await new Promise((resolve) => process.stdin.on("end", resolve).resume());
running = false;
await Promise.all(loads);
clearInterval(report);
console.log(JSON.stringify(counts));
await db.close();
