// The local gateway: every edge function in one Deno process on the paths Supabase uses
// (/functions/v1/<name>/...), plus the API paths at the root (/api/..., /llms.txt, /health, /ready).
import { createApiApp } from "../supabase/functions/api/app.ts";
import { serve } from "../supabase/functions/_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../supabase/functions/_shared/services.ts";

type Fetch = (request: Request) => Response | Promise<Response>;

export function createGateway(functions: Record<string, Fetch>, root: Fetch): Fetch {
  return (request) => {
    const url = new URL(request.url);
    const match = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
    const target = match ? functions[match[1]!] : undefined;
    if (!match || !target) return root(request);
    // Supabase hands a function the path without /functions/v1, starting with its own name.
    url.pathname = `/${match[1]}${match[2] ?? ""}`;
    return target(new Request(url, request));
  };
}

if (import.meta.main) {
  const services = servicesFromEnvironment();
  const api = createApiApp(services).fetch;
  const port = Number(process.env.PORT ?? 54321);
  serve(createGateway({ api }, api), { hostname: process.env.HOST ?? "127.0.0.1", port });
  console.log(`gateway listening on http://${process.env.HOST ?? "127.0.0.1"}:${port}`);
}
