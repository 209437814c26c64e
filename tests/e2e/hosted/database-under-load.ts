// Run by Deno with a function's deno.json as its configuration and no node_modules, the way Supabase
// runs a function: `postgres` is then the package as published (not patches/postgres+3.4.9.patch).
// Keeps the service's Database busy (several reserved connections in transactions, new connections
// opening) on DATABASE_URL until stdin closes, printing one line per second: how many transactions
// ended, answered and refused.
import { connect, Database } from "../../../supabase/functions/_shared/db/database.ts";

const url = Deno.args[0]!;
const db = new Database(connect(url, { max: 4, prepare: true, connectTimeoutSeconds: 2 }), connect(url, { max: 1, prepare: true }), {
  probeSql: connect(url, { max: 1, prepare: true }),
  acquireTimeoutMs: 2_000,
});
const counts = { answered: 0, refused: 0 };
let running = true;
const loads = Array.from({ length: 12 }, async () => {
  while (running) {
    try {
      await db.transaction({ kind: "claims", role: "authenticated", claims: {} }, async (tx) => {
        await tx`select pg_sleep(0.002)`;
        await tx`select 1`;
      });
      counts.answered++;
    } catch {
      counts.refused++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});
const report = setInterval(() => console.log(JSON.stringify(counts)), 250);
for await (const _ of Deno.stdin.readable) { /* until the test closes stdin */ }
running = false;
await Promise.all(loads);
clearInterval(report);
console.log(JSON.stringify(counts));
await db.close();
