// The background jobs' database scope: service_jobs, the role their SQL functions and policies are
// written for (webhook dispatch, checkout reconciliation, relaying, the provider's verifier). Not a
// Database scope: ClaimsScope's roles do not name service_jobs, and it needs no claims.
import type { Database, Tx } from "./database.ts";

/** `db` as service_jobs: each transaction switches to the role inside itself (api_gateway may). */
export function serviceJobs(db: Database) {
  return {
    transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      return db.untranslatedTransaction(async (tx) => {
        await tx`select set_config('role', 'service_jobs', true)`;
        return work(tx);
      });
    },
  };
}
