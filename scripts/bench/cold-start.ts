// What each edge function pays at a cold start, in the hosted layout (tests/hosted/edge-functions.ts):
// the modules its static import graph loads (deno info, following code imports only, as Deno
// loads them: type-only imports are erased) and the time from the process's start to its first
// answer. The first request needs no database (no credentials: 401, or the app's own 404), so the
// figure is loading and building the app, not a query.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { DENO_CACHE, serveHostedFunctions } from "../../tests/hosted/edge-functions.ts";
import { REPO_ROOT } from "../lib/local-postgres.ts";

const FUNCTIONS = ["api", "chat-with-assistant", "discover-mcp-capabilities", "transcribe-audio", "rename-chat-for-event"];
/** A path of each function that answers without a database or credentials. */
const FIRST_REQUEST: Record<string, string> = { api: "/api/v3/events" };
const RUNS = 5;

interface GraphModule { specifier: string; dependencies?: { code?: { specifier: string } }[]; npmPackage?: string }

/** The project's modules and the npm packages the function's code imports reach. */
function modulesOf(name: string): { modules: number; npmPackages: number } {
  const dir = join(REPO_ROOT, "supabase", "functions", name);
  const info = JSON.parse(execFileSync(join(REPO_ROOT, "node_modules", ".bin", "deno"), [
    "info", "--json", "--no-lock", "--node-modules-dir=none", "--config", join(dir, "deno.json"), join(dir, "index.ts"),
  ], { env: { ...process.env, DENO_DIR: DENO_CACHE, DENO_NO_UPDATE_CHECK: "1" }, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 << 20 }).toString()) as
    { roots: string[]; modules: GraphModule[]; redirects: Record<string, string> };
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [...info.roots];
  while (stack.length) {
    const popped = stack.pop()!;
    const specifier = info.redirects[popped] ?? popped;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    if (specifier.startsWith("npm:")) packages.add(specifier.replace(/^npm:\/?(@?[^@/]+(?:\/[^@/]+)?)@.*$/, "$1"));
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) if (dependency.code) stack.push(dependency.code.specifier);
  }
  return { modules: [...seen].filter((specifier) => specifier.startsWith("file:")).length, npmPackages: packages.size };
}

/** Milliseconds from starting the function's process to its first answer. */
async function coldStartMs(name: string): Promise<number> {
  const started = performance.now();
  const hosted = await serveHostedFunctions([name], {
    GATEWAY_DATABASE_URL: "postgres://authenticator:unused@127.0.0.1:9/postgres", APP_ENV: "test",
    JWT_SECRET: "cold-start-bench-secret-at-least-32-chars", ASSISTANT_API_KEY: "unused", ASSISTANT_BASE_URL: "http://127.0.0.1:9/v1",
  });
  try {
    const answer = await fetch(`${hosted.root}${FIRST_REQUEST[name] ?? `/${name}`}`);
    await answer.arrayBuffer();
    if (answer.status >= 500) throw new Error(`${name} answered ${answer.status}: ${hosted.output(name)}`);
    return performance.now() - started;
  } finally {
    await hosted.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchColdStart() {
  const results: Record<string, { modules: number; npmPackages: number; coldStartMs: number }> = {};
  for (const name of FUNCTIONS) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) times.push(await coldStartMs(name));
    results[name] = { ...modulesOf(name), coldStartMs: Math.round(median(times)) };
    console.log(`${name}: ${results[name].modules} modules, ${results[name].npmPackages} npm packages, cold start ${results[name].coldStartMs} ms (median of ${RUNS})`);
  }
  return results;
}
