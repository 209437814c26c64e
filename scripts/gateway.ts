// The local gateway: every edge function in one Deno process on the paths Supabase uses
// (/functions/v1/<name>/...), plus the API paths at the root (/api/..., /llms.txt, /health, /ready).
import process from "node:process";
import { createApiApp } from "../supabase/functions/api/app.ts";
import { createChatWithAssistantApp } from "../supabase/functions/chat-with-assistant/app.ts";
import { createDiscoverMcpCapabilitiesApp } from "../supabase/functions/discover-mcp-capabilities/app.ts";
import { createJobsApp } from "../supabase/functions/jobs/app.ts";
import { createRenameChatForEventApp } from "../supabase/functions/rename-chat-for-event/app.ts";
import { createTranscribeAudioApp } from "../supabase/functions/transcribe-audio/app.ts";
import type { Config } from "../supabase/functions/_shared/config.ts";
import type { AppServices } from "../supabase/functions/_shared/http/context.ts";
import type { ConnectionInfo, Environment } from "../supabase/functions/_shared/platform/runtime.ts";
import { serve } from "../supabase/functions/_shared/platform/runtime.ts";
import { startReconciler } from "../supabase/functions/_shared/checkout/reconciler.ts";
import { startRelayLoop } from "../supabase/functions/_shared/relays/relayer.ts";
import { servicesFromEnvironment } from "../supabase/functions/_shared/services.ts";
import { createWebhookDispatcher } from "../supabase/functions/_shared/webhooks/dispatcher.ts";

type Fetch = (request: Request, connection: ConnectionInfo) => Response | Promise<Response>;

/** Routes each request to its function, with the connection's peer (the client's address, for per-IP limits). */
export function createGateway(functions: Record<string, Fetch>, root: Fetch): Fetch {
  return (request, connection) => {
    const url = new URL(request.url);
    const match = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
    const target = match ? functions[match[1]!] : undefined;
    if (!match || !target) return root(request, connection);
    // Supabase hands a function the path without /functions/v1, starting with its own name.
    url.pathname = `/${match[1]}${match[2] ?? ""}`;
    return target(requestAt(url, request), connection);
  };
}

/**
 * `request` as if sent to `url`. Deno.serve hands over requests that the fetch standard forbids
 * making again: TRACE and TRACK, and a lower-case `get` (it keeps a body, which a GET may not have).
 * Such a request goes on as itself, seen at `url`, and its function refuses it like any other
 * method it does not serve (405 in the one error body).
 */
function requestAt(url: URL, request: Request): Request {
  try {
    return new Request(url, request);
  } catch {
    return new Proxy(request, {
      get(target, property) {
        if (property === "url") return url.href;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

/** Every edge function's fetch, by the name Supabase serves it under. */
export function createFunctions(services: AppServices) {
  return {
    api: createApiApp(services).fetch,
    jobs: createJobsApp(services).fetch,
    "chat-with-assistant": createChatWithAssistantApp(services).fetch,
    "transcribe-audio": createTranscribeAudioApp(services).fetch,
    "discover-mcp-capabilities": createDiscoverMcpCapabilitiesApp(services).fetch,
    "rename-chat-for-event": createRenameChatForEventApp(services).fetch,
  } satisfies Record<string, Fetch>;
}

/** Serves every function on HOST:PORT; `stop` ends the server and closes the database pool. */
export async function startGateway(env: Environment): Promise<{ url: string; config: Config; stop(): Promise<void> }> {
  const services = servicesFromEnvironment(env);
  const hostname = env.HOST ?? "127.0.0.1";
  const port = Number(env.PORT ?? 54321);
  const headerTimeoutMs = services.config.HEADER_TIMEOUT_MS || undefined;
  const functions = createFunctions(services);
  const server = await serve(createGateway(functions, functions.api), { hostname, port, headerTimeoutMs });
  // The gateway is the process that stays up locally, so it drains the webhook outbox too.
  const webhooks = services.config.WEBHOOK_DISPATCH ? createWebhookDispatcher(services) : undefined;
  await webhooks?.start();
  // And completes paid checkouts whose page closed before confirming.
  const reconcileSeconds = services.config.CHECKOUT_RECONCILE_SECONDS;
  const reconciler = reconcileSeconds > 0 ? startReconciler(services, reconcileSeconds * 1000) : undefined;
  // And relays: charges mined gasless relays, broadcasts persisted ones again, replaces stuck ones.
  const relayLoop = services.config.RELAYER_LOOP_SECONDS > 0 ? startRelayLoop(services, services.config.RELAYER_LOOP_SECONDS * 1000) : undefined;
  return {
    url: `http://${hostname}:${port}`,
    config: services.config,
    stop: async () => {
      await server.shutdown();
      await reconciler?.stop();
      await relayLoop?.stop();
      await webhooks?.stop(); // before the pool closes: deliveries in flight still record their attempt
      await services.db.close();
    },
  };
}

if (import.meta.main) {
  const gateway = await startGateway(process.env);
  console.log(`gateway listening on ${gateway.url}`);
}
