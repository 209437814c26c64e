// The kick after a completing commit. On Supabase no dispatcher stays up between
// requests, so the request that completed a checkout sends its webhook itself once its response
// has gone out, instead of waiting for the next pg_cron run of the jobs function. Where a process runs
// the dispatcher loop (npm start, a container), LISTEN/NOTIFY has already woken it: nothing to do.
import type { AppServices } from "../http/context.ts";
import { afterResponseHost } from "../platform/runtime.ts";
import { createWebhookDispatcher } from "./dispatcher.ts";

/** A kick sends what is due now; a few at most, so it never becomes a second outbox drain. */
const KICK_LIMIT = 5;

export function kickWebhookDispatch(services: AppServices): void {
  const runAfterResponse = afterResponseHost();
  if (!runAfterResponse) return;
  runAfterResponse(
    createWebhookDispatcher(services).drainOnce(KICK_LIMIT).catch((error) => {
      // The delivery stays due in the outbox: the jobs function sends it on its next run.
      console.error("[webhooks] kick after commit failed:", error instanceof Error ? error.message : String(error));
    }),
  );
}
