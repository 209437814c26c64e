// Load from a second process: wrk (Debian package), parsed into numbers.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePackages, gatewayUrl, REPO_ROOT } from "../lib/local-postgres.ts";

/**
 * The gateway as the service is deployed: Deno.serve alone. `npm start`'s header-read guard (a relay
 * in front of it, local only; docs/deployment.md) is measured in rows of its own.
 */
export const AS_DEPLOYED = { HEADER_TIMEOUT_MS: "0" };

/** Where benchmarks keep their scripts and results (git-ignored). */
export const BENCH_DIR = join(REPO_ROOT, ".local", "bench");

export interface LoadResult {
  name: string;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN);

export function ensureWrk() {
  ensurePackages([{ name: "wrk", proof: "/usr/bin/wrk" }]);
  mkdirSync(BENCH_DIR, { recursive: true });
}

export interface WrkOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  script?: string;
}

function wrkArguments(url: string, options: WrkOptions): string[] {
  const args = ["-t", "1", "-c", String(options.connections), "-d", `${options.seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (options.script) args.push("-s", options.script);
  return [...args, url];
}

function parseWrk(name: string, options: WrkOptions, out: string): LoadResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  if (!rps || !p50 || !p99) throw new Error(`could not parse wrk output:\n${out}`);
  return {
    name,
    connections: options.connections,
    seconds: options.seconds,
    requestsPerSecond: Math.round(Number(rps[1])),
    p50Ms: toMs(p50[1]!, p50[2]!),
    p99Ms: toMs(p99[1]!, p99[2]!),
    non2xx: Number(non2xx?.[1] ?? 0),
  };
}

export function runWrk(name: string, url: string, options: WrkOptions): LoadResult {
  return parseWrk(name, options, execFileSync("wrk", wrkArguments(url, options), { encoding: "utf8" }));
}

/** The same as runWrk, in the background: for a load that runs while another is measured. */
export function startWrk(name: string, url: string, options: WrkOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile("wrk", wrkArguments(url, options), { encoding: "utf8" }, (error, out) => {
      if (error) reject(error);
      else resolve(parseWrk(name, options, out));
    });
  });
}

export function formatTable(rows: LoadResult[]): string {
  const lines = ["| route | conns | req/s | p50 ms | p99 ms | non-2xx |", "|---|---|---|---|---|---|"];
  for (const r of rows) lines.push(`| ${r.name} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} |`);
  return lines.join("\n");
}

/**
 * pgbench's transactions per second for `script` (written to BENCH_DIR/<name>.sql) at `clients`
 * clients, logged in as the service's role: the database's own pace for the work a route does.
 */
export function runPgbench(url: string, name: string, script: string, clients: number, seconds: number): number {
  mkdirSync(BENCH_DIR, { recursive: true });
  const file = join(BENCH_DIR, `${name}.sql`);
  writeFileSync(file, script);
  const out = execFileSync("/usr/lib/postgresql/15/bin/pgbench",
    ["-n", "-M", "prepared", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", file, gatewayUrl(url)], { encoding: "utf8" });
  const tps = /tps = ([\d.]+)/.exec(out);
  if (!tps) throw new Error(`could not parse pgbench output:\n${out}`);
  return Math.round(Number(tps[1]));
}
