// Starts `npm start`'s entry (scripts/start.ts) as a real Deno process: for end-to-end tests and benchmarks.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { gatewayUrl, REPO_ROOT } from "./local-postgres.ts";

export interface GatewayProcess {
  url: string;
  output: () => string;
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `env.DATABASE_URL` is the owner's connection to a database on the local or test server (migrated
 * by start.ts); the gateway logs in to it as `api_gateway` unless GATEWAY_DATABASE_URL says otherwise.
 */
export async function startGatewayProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<GatewayProcess> {
  if (env.DATABASE_URL && !env.GATEWAY_DATABASE_URL) env = { ...env, GATEWAY_DATABASE_URL: gatewayUrl(env.DATABASE_URL) };
  // A PORT in `env` wins (the caller needs to know the URL before the start, e.g. for PUBLIC_API_ROOT).
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "deno"), ["run", "-A", "scripts/start.ts"], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes("Ctrl-C stops")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", () => reject(new Error(`gateway exited early:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    process: child,
    stop: async (signal = "SIGINT") => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
