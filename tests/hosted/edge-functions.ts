// Serves function folders the way Supabase does, for tests: each function runs in a Deno process of
// its own from a copy of supabase/functions outside the repository (no node_modules, no package.json
// anywhere above it), with the function's own deno.json as its configuration and import map, so every
// npm: import comes from the registry through Deno's cache (.local/deno-hosted, kept between runs). A
// tiny proxy in front plays the platform: /functions/v1/<name>/<rest> reaches function <name> as
// /<name>/<rest>; any other path answers 404, except the project's /auth/v1 (Supabase Auth), which the
// api function's local auth server plays when it runs (LOCAL_AUTH_ENABLED). PUBLIC_API_ROOT is <proxy>/functions/v1, as the README
// sets it on Supabase.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { functionPath } from "../http/edge-runtime.ts";

/** Deno's cache of the functions' npm packages: filled on the first run (README, Tests), reused after. */
export const DENO_CACHE = join(REPO_ROOT, ".local", "deno-hosted");

// The Edge Runtime owns the listener and hands requests to the function's Deno.serve handler; here
// the function's own Deno.serve listens where the proxy forwards.
const ENTRY = `const port = Number(Deno.env.get("EDGE_FUNCTION_PORT"));
const serve = Deno.serve;
Deno.serve = ((options, handler) => serve({ ...(typeof options === "function" ? {} : options), port, hostname: "127.0.0.1",
  onListen: () => console.log("edge function listening") }, typeof options === "function" ? options : handler));
await import(Deno.env.get("EDGE_FUNCTION_MAIN"));
`;

/** How this machine reaches the npm registry: proxies and trusted certificates, for Deno's downloads. */
function networkSettings(): Record<string, string> {
  const settings = Object.fromEntries(Object.entries(process.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && /^(https?_proxy|no_proxy|deno_cert|deno_tls_ca_store|ssl_cert_file|ssl_cert_dir)$/i.test(entry[0])));
  // Certificates this machine trusts (SSL_CERT_FILE, a proxy's own authority) beside Deno's bundled ones.
  return { DENO_TLS_CA_STORE: "mozilla,system", ...settings };
}

export interface HostedFunctions {
  /** PUBLIC_API_ROOT of the functions: <proxy origin>/functions/v1. */
  root: string;
  origin: string;
  /** Each function's output so far. */
  output(name: string): string;
  stop(): Promise<void>;
}

/** Starts `names` (folders of supabase/functions) with `env`, behind the proxy; resolves once each listens. */
export async function serveHostedFunctions(names: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<HostedFunctions> {
  const dir = mkdtempSync(join(tmpdir(), "hosted-functions-"));
  cpSync(join(REPO_ROOT, "supabase", "functions"), join(dir, "functions"), { recursive: true });
  writeFileSync(join(dir, "edge-entry.ts"), ENTRY);
  const proxyPort = await freePort();
  const origin = `http://127.0.0.1:${proxyPort}`;
  const root = `${origin}/functions/v1`;

  const ports = new Map<string, number>();
  const children = new Map<string, { child: ChildProcess; output: string }>();
  try {
    await Promise.all(names.map(async (name) => {
      const port = await freePort();
      ports.set(name, port);
      const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "deno"), [
        "run", "--allow-all", "--no-lock", "--node-modules-dir=none", "--config", join(dir, "functions", name, "deno.json"), join(dir, "edge-entry.ts"),
      ], {
        cwd: dir,
        // What a deployed function has, its secrets, and not the test process's environment; only this
        // machine's way to the npm registry (proxy and certificate settings) besides.
        env: {
          ...networkSettings(), PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DENO_DIR: DENO_CACHE, DENO_NO_UPDATE_CHECK: "1",
          ...env, PUBLIC_API_ROOT: root, EDGE_FUNCTION_PORT: String(port), EDGE_FUNCTION_MAIN: `file://${join(dir, "functions", name, "index.ts")}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const entry = { child, output: "" };
      children.set(name, entry);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not start in ${timeoutMs} ms:\n${entry.output}`)), timeoutMs);
        const read = (chunk: Buffer) => {
          entry.output += chunk.toString();
          if (entry.output.includes("edge function listening")) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on("data", read);
        child.stderr!.on("data", read);
        child.once("exit", () => {
          clearTimeout(timer);
          reject(new Error(`${name} exited:\n${entry.output}`));
        });
      });
    }));
  } catch (error) {
    for (const { child } of children.values()) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const proxy: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", origin);
    const auth = url.pathname.startsWith("/auth/v1/") && env.LOCAL_AUTH_ENABLED === "true";
    const name = auth ? "api" : /^\/functions\/v1\/([a-z0-9-]+)/.exec(url.pathname)?.[1];
    const path = auth ? `/api${url.pathname}` : name && ports.has(name) ? functionPath(url.pathname, name) : undefined;
    if (!name || path === undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: true, code: "not_found", message: "no such function" }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined && key !== "host" && key !== "connection") headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    try {
      const answer = await fetch(`http://127.0.0.1:${ports.get(name)}${path}${url.search}`, {
        method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, redirect: "manual",
      });
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((value, key) => {
        if (key !== "set-cookie" && key !== "content-encoding" && key !== "content-length" && key !== "transfer-encoding") out[key] = value;
      });
      if (answer.headers.getSetCookie().length) out["set-cookie"] = answer.headers.getSetCookie();
      res.writeHead(answer.status, out);
      if (answer.body) Readable.fromWeb(answer.body as never).pipe(res);
      else res.end();
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: true, code: "bad_gateway", message: String(error) }));
    }
  });
  await new Promise<void>((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve));

  return {
    root,
    origin,
    output: (name) => children.get(name)?.output ?? "",
    async stop() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await Promise.all([...children.values()].map(({ child }) => new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      })));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
