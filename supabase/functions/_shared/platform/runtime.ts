// The one place that touches Deno globals, so every other module runs under Deno and Node.
declare const Deno:
  | {
    env: { toObject(): Record<string, string> };
    serve(options: { hostname?: string; port?: number; onListen?: () => void }, handler: (request: Request) => Response | Promise<Response>): unknown;
  }
  | undefined;

export type Environment = Record<string, string | undefined>;

export function runtimeEnvironment(): Environment {
  if (typeof Deno !== "undefined") return Deno.env.toObject();
  return (globalThis as { process?: { env: Environment } }).process?.env ?? {};
}

/** Serves a fetch handler with Deno (production, `npm start`). */
export function serve(handler: (request: Request) => Response | Promise<Response>, options: { hostname?: string; port?: number } = {}) {
  if (typeof Deno === "undefined") throw new Error("serve() needs Deno; under Node call app.request() instead");
  return Deno.serve({ ...options, onListen: () => {} }, handler);
}
