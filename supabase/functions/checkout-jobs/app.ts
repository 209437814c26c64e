// The `checkout-jobs` edge function: the checkout's background work for a deployment where no
// process stays up (Supabase). pg_cron calls it every minute through pg_net (README, Deployment);
// each call runs one reconciler pass (paid checkouts whose page closed) and then drains the webhook
// outbox for up to DRAIN_BUDGET_MS. The same code runs in the local gateway's loops; the SQL claims
// keep any number of concurrent callers from completing or sending anything twice.
import { createBaseApp } from "../_shared/http/app.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { ApiError } from "../_shared/http/errors.ts";
import { matchesSecret } from "../_shared/crypto/constant-time.ts";
import { reconcileOnce } from "../_shared/checkout/reconciler.ts";
import { createWebhookDispatcher } from "../_shared/webhooks/dispatcher.ts";

export const CHECKOUT_JOBS_SECRET_HEADER = "x-checkout-jobs-secret";

/** Batches are claimed while there is time: Supabase stops a function after 150 s of wall clock. */
const DRAIN_BUDGET_MS = 60_000;
const DRAIN_BATCH = 100;

export interface CheckoutJobsOutcome {
  reconciled: { checked: number; completed: number };
  /** Webhook deliveries attempted (each attempt is recorded, whatever its outcome). */
  deliveriesAttempted: number;
}

/** One run: a reconciler pass, then webhook batches until the outbox has nothing due or time is up. */
export async function runCheckoutJobs(services: AppServices, now = () => Date.now()): Promise<CheckoutJobsOutcome> {
  const reconciled = await reconcileOnce(services);
  const dispatcher = createWebhookDispatcher(services);
  const deadline = now() + DRAIN_BUDGET_MS;
  let deliveriesAttempted = 0;
  for (let claimed = DRAIN_BATCH; claimed === DRAIN_BATCH && now() < deadline;) {
    claimed = await dispatcher.drainOnce(DRAIN_BATCH);
    deliveriesAttempted += claimed;
  }
  return { reconciled, deliveriesAttempted };
}

export function createCheckoutJobsApp(services: AppServices) {
  const app = createBaseApp(services);
  app.post("/checkout-jobs", async (c) => {
    const secret = services.config.CHECKOUT_JOBS_SECRET;
    if (!secret) throw new ApiError(503, "checkout_jobs_not_configured", "CHECKOUT_JOBS_SECRET is not set, so no call is accepted.");
    if (!matchesSecret(c.req.header(CHECKOUT_JOBS_SECRET_HEADER), [secret])) {
      throw new ApiError(401, "unauthenticated", `A valid ${CHECKOUT_JOBS_SECRET_HEADER} header is required.`);
    }
    return c.json(await runCheckoutJobs(services), 200);
  });
  return app;
}
