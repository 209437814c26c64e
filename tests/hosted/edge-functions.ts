// Serves function folders the way Supabase does, for tests: each function runs in a Deno process of
// its own from a copy of supabase/functions outside the repository (no node_modules, no package.json
// anywhere above it), with the function's own deno.json as its configuration and import map, so every
// npm: import comes from the registry through Deno's cache (.local/deno-hosted, kept between runs). A
// tiny proxy in front plays the platform: /functions/v1/<name>/<rest> reaches function <name> as
// /<name>/<rest>; any other path answers 404 (marked `x-hosted-platform`), except the project's
// /auth/v1 (Supabase Auth), which the api function's local auth server plays when it runs
// (LOCAL_AUTH_ENABLED). PUBLIC_API_ROOT is <proxy>/functions/v1, as docs/deployment.md sets it on Supabase.
// The proxy is an HTTP server by default (any client, keep-alive); `rawProxy` makes it a TCP proxy
// that passes each connection through byte for byte and only rewrites the path of its request line,
// so that requests an HTTP server or fetch would refuse reach the function as sent (one request per
// connection: the client sends `connection: close`).
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

/** Deno's cache of the functions' npm packages: filled on the first run (docs/architecture.md), reused after. */
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

/** Where the platform sends a request for `target` (a request line's path and query): the function and the path it receives. */
function routeOf(target: string, ports: Map<string, number>, localAuth: boolean): { name: string; path: string } | undefined {
  if (localAuth && target.startsWith("/auth/v1/")) return { name: "api", path: `/api${target}` };
  const name = /^\/functions\/v1\/([a-z0-9-]+)(?=[/?]|$)/.exec(target)?.[1];
  return name && ports.has(name) ? { name, path: target.slice("/functions/v1".length) } : undefined;
}

/** The platform's answer for a path that reaches no function; `x-hosted-platform` tells a test it did not come from a function. */
const NO_SUCH_FUNCTION = JSON.stringify({ error: true, code: "not_found", message: "no such function" });

export interface HostedFunctions {
  /** PUBLIC_API_ROOT of the functions: <proxy origin>/functions/v1. */
  root: string;
  origin: string;
  /** Each function's output so far. */
  output(name: string): string;
  stop(): Promise<void>;
}

/** Starts `names` (folders of supabase/functions) with `env`, behind the proxy; resolves once each listens. */
export async function serveHostedFunctions(names: string[], env: Record<string, string>, { timeoutMs = 120_000, rawProxy = false } = {}): Promise<HostedFunctions> {
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

  const localAuth = env.LOCAL_AUTH_ENABLED === "true";
  const proxy = rawProxy ? rawTcpProxy((target) => {
    const route = routeOf(target, ports, localAuth);
    return route && { port: ports.get(route.name)!, target: route.path };
  }) : createServer(async (req, res) => {
    const route = routeOf(req.url ?? "/", ports, localAuth);
    if (!route) {
      res.writeHead(404, { "content-type": "application/json", "x-hosted-platform": "no such function" }).end(NO_SUCH_FUNCTION);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined && key !== "host" && key !== "connection") headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    try {
      const answer = await fetch(`http://127.0.0.1:${ports.get(route.name)}${route.path}`, {
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
  const connections = new Set<Socket>();
  proxy.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });
  await listenOnLoopback(proxy, proxyPort);

  return {
    root,
    origin,
    output: (name) => children.get(name)?.output ?? "",
    async stop() {
      for (const socket of connections) socket.destroy();
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

/**
 * A TCP proxy that reads a connection's request line, asks `route` where its path goes, and passes the
 * connection through with only that path rewritten; every other byte (headers, body, invalid framing
 * included) reaches the function as the client sent it, and the function's answer comes back the same.
 */
function rawTcpProxy(route: (target: string) => { port: number; target: string } | undefined) {
  return createTcpServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n");
      if (end < 0) return;
      client.off("data", onData);
      client.pause();
      const [method, target, version] = head.subarray(0, end).toString("latin1").split(" ");
      const to = target === undefined ? undefined : route(target);
      if (!to) {
        client.end(`HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\nx-hosted-platform: no such function\r\ncontent-length: ${NO_SUCH_FUNCTION.length}\r\nconnection: close\r\n\r\n${NO_SUCH_FUNCTION}`);
        return;
      }
      const upstream = connect(to.port, "127.0.0.1", () => {
        upstream.write(Buffer.concat([Buffer.from(`${method} ${to.target} ${version}`, "latin1"), head.subarray(end)]));
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      client.once("close", () => upstream.destroy());
    };
    client.on("data", onData);
    client.on("error", () => client.destroy());
  });
}
