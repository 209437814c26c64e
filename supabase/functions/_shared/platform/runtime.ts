// The one place that touches Deno globals, so every other module runs under Deno and Node.
declare const Deno:
  | {
    env: { toObject(): Record<string, string> };
    serve(
      options: { hostname?: string; port?: number; onListen?: () => void },
      handler: (request: Request) => Response | Promise<Response>,
    ): { shutdown(): Promise<void> };
  }
  | undefined;

export type Environment = Record<string, string | undefined>;

export function runtimeEnvironment(): Environment {
  if (typeof Deno !== "undefined") return Deno.env.toObject();
  return (globalThis as { process?: { env: Environment } }).process?.env ?? {};
}

/** Serves a fetch handler with Deno (production, `npm start`); resolves once it listens. */
export async function serve(
  handler: (request: Request) => Response | Promise<Response>,
  options: { hostname?: string; port?: number } = {},
): Promise<{ shutdown(): Promise<void> }> {
  if (typeof Deno === "undefined") throw new Error("serve() needs Deno; under Node call app.request() instead");
  let listening!: () => void;
  const listened = new Promise<void>((resolve) => (listening = resolve));
  const server = Deno.serve({ ...options, onListen: () => listening() }, handler);
  await listened;
  return server;
}
