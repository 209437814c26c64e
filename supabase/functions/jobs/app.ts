// The `jobs` edge function: the background work for a deployment where no process stays up
// (Supabase). pg_cron calls it through pg_net (docs/deployment.md); each call runs one checkout
// reconciler pass (paid checkouts whose page closed), one gasless-relay pass (charge mined relays,
// broadcast stored ones again, replace stuck ones), then drains the webhook outbox for up to
// DRAIN_BUDGET_MS. The same code runs in the local gateway's loops; the SQL claims and row locks
// keep any number of concurrent callers from completing, charging or sending anything twice.
import { createBaseApp } from "../_shared/http/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { ApiError } from "../_shared/http/errors.ts";
import { matchesSecret } from "../_shared/crypto/constant-time.ts";
import { reconcileOnce } from "../_shared/checkout/reconciler.ts";
import { type RelayPassOutcome, relayOnce } from "../_shared/relays/relayer.ts";
import { createWebhookDispatcher } from "../_shared/webhooks/dispatcher.ts";

export const JOBS_SECRET_HEADER = "x-jobs-secret";

/** Batches are claimed while there is time: Supabase stops a function after 150 s of wall clock. */
const DRAIN_BUDGET_MS = 60_000;
const DRAIN_BATCH = 100;

export interface JobsOutcome {
  reconciled: { checked: number; completed: number };
  relays: RelayPassOutcome;
  /** Webhook deliveries attempted (each attempt is recorded, whatever its outcome). */
  deliveriesAttempted: number;
}

/** One run: a reconciler pass, a relay pass, then webhook batches until nothing is due or time is up. */
export async function runJobs(services: AppServices, now = () => Date.now()): Promise<JobsOutcome> {
  const reconciled = await reconcileOnce(services);
  const relays = await relayOnce(services);
  const dispatcher = createWebhookDispatcher(services);
  const deadline = now() + DRAIN_BUDGET_MS;
  let deliveriesAttempted = 0;
  for (let claimed = DRAIN_BATCH; claimed === DRAIN_BATCH && now() < deadline;) {
    claimed = await dispatcher.drainOnce(DRAIN_BATCH);
    deliveriesAttempted += claimed;
  }
  return { reconciled, relays, deliveriesAttempted };
}

export function createJobsApp(services: AppServices) {
  const app = createBaseApp(services);
  app.post("/jobs", async (c) => {
    const secret = services.config.JOBS_SECRET;
    if (!secret) throw new ApiError(503, "jobs_not_configured", "JOBS_SECRET is not set, so no call is accepted.");
    if (!matchesSecret(c.req.header(JOBS_SECRET_HEADER), [secret])) {
      throw new ApiError(401, "unauthenticated", `A valid ${JOBS_SECRET_HEADER} header is required.`);
    }
    return c.json(await runJobs(services), 200);
  });
  return app;
}
