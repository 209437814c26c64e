// The project's own PostgreSQL 15 cluster on 127.0.0.1:54322, in a git-ignored folder.
// Runs under Deno (npm start, npm run db:*) and Node (vitest global setup): node: APIs only.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const LOCAL_PORT = 54322;
export const LOCAL_DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${LOCAL_PORT}/postgres`;

/** The same server and credentials as `url`, another database. */
export function withDatabase(url: string, name: string): string {
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
}

// The service's login role (sql/bootstrap.sql) gets this password on local and test servers only,
// like postgres/postgres; a deployment sets its own (docs/deployment.md).
const LOCAL_GATEWAY_PASSWORD = "api_gateway";

/** The service's connection to the database of `ownerUrl` on a local or test server: `api_gateway`. */
export function gatewayUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = "api_gateway";
  url.password = LOCAL_GATEWAY_PASSWORD;
  return url.toString();
}

/**
 * Lets `api_gateway` log in with the local password (a role is per server, so once per server).
 * Admin commands, `npm start` and test runs all do this as they connect, often at the same moment,
 * and two ALTER ROLEs of one role at once fail ("tuple concurrently updated"): they take turns.
 */
export async function enableLocalGatewayLogin(ownerUrl: string): Promise<void> {
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('api_gateway login'))`;
      await tx.unsafe(`alter role api_gateway with login password '${LOCAL_GATEWAY_PASSWORD}'`);
    });
  } finally {
    await sql.end();
  }
}

export const PG_BIN = "/usr/lib/postgresql/15/bin";
const PG_SHARE = "/usr/share/postgresql/15/extension";

/** Debian packages the project needs, with the file that proves each is installed. */
const REQUIRED_PACKAGES: Array<{ name: string; proof: string }> = [
  { name: "postgresql-15", proof: `${PG_BIN}/postgres` },
  { name: "postgresql-15-cron", proof: `${PG_SHARE}/pg_cron.control` },
  { name: "postgresql-15-pgtap", proof: `${PG_SHARE}/pgtap.control` },
  { name: "libtap-parser-sourcehandler-pgtap-perl", proof: "/usr/bin/pg_prove" },
];

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function log(message: string) {
  process.stderr.write(`[db] ${message}\n`);
}

/** Installs missing Debian packages when root; otherwise says exactly what to install. */
export function ensurePackages(extra: Array<{ name: string; proof: string }> = []): void {
  const missing = [...REQUIRED_PACKAGES, ...extra].filter((p) => !existsSync(p.proof));
  if (missing.length === 0) return;
  const names = missing.map((p) => p.name);
  if (!isRoot()) {
    throw new Error(
      `missing Debian packages: ${names.join(" ")}\n` +
        `install them with: sudo apt-get install -y ${names.join(" ")}`,
    );
  }
  log(`installing ${names.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  // apt's output goes to stderr: stdout belongs to the caller (`admin --json`).
  const stdio: ["ignore", number, number] = ["ignore", 2, 2];
  execFileSync("apt-get", ["update", "-qq"], { stdio, env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...names], { stdio, env });
}

/**
 * Where the cluster lives. PostgreSQL refuses to run as root, so as root the cluster belongs to
 * the `postgres` account; when that account cannot reach the checkout (a clone under /root), the
 * cluster goes to a folder of its own named after the checkout.
 */
export function dataDirectory(): string {
  const inRepo = join(REPO_ROOT, ".local", "postgres");
  if (!isRoot()) return inRepo;
  const reachable = spawnSync("runuser", ["-u", "postgres", "--", "test", "-x", REPO_ROOT]).status === 0;
  if (reachable) return inRepo;
  const tag = createHash("sha1").update(REPO_ROOT).digest("hex").slice(0, 10);
  return `/var/tmp/events-service-postgres-${tag}`;
}

function runPg(binary: string, args: string[], options: { allowFailure?: boolean } = {}) {
  const command = isRoot() ? "runuser" : `${PG_BIN}/${binary}`;
  const fullArgs = isRoot() ? ["-u", "postgres", "--", `${PG_BIN}/${binary}`, ...args] : args;
  const result = spawnSync(command, fullArgs, { encoding: "utf8" });
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`${binary} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  }
  return result;
}

/** A cluster's folder and port: the project's own (localCluster), or a throwaway one a test starts. */
export interface Cluster {
  dir: string;
  port: number;
}

export const localCluster = (): Cluster => ({ dir: dataDirectory(), port: LOCAL_PORT });

const clusterSettings = (port: number) => `
# Written by scripts/lib/local-postgres.ts: a disposable local cluster, tuned for tests.
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = '/tmp'
max_connections = 400
shared_buffers = 512MB
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 32
# Durability is not a goal of a local test cluster; speed is.
fsync = off
synchronous_commit = off
full_page_writes = off
`;

function portAnswers(port: number): boolean {
  return spawnSync(`${PG_BIN}/pg_isready`, ["-q", "-h", "127.0.0.1", "-p", String(port)]).status === 0;
}

export function isRunning(dir = dataDirectory()): boolean {
  if (!existsSync(join(dir, "PG_VERSION"))) return false;
  return runPg("pg_ctl", ["status", "-D", dir], { allowFailure: true }).status === 0;
}

/** Initialises the cluster when missing and starts it when stopped. A second call is a no-op. */
export function startCluster({ dir, port }: Cluster = localCluster()): { dataDir: string; started: boolean } {
  ensurePackages();
  if (!existsSync(join(dir, "PG_VERSION"))) {
    log(`initialising a cluster in ${dir}`);
    mkdirSync(join(dir, ".."), { recursive: true, mode: 0o755 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pwfile = join(dir, "..", `.pwfile-${process.pid}`);
    writeFileSync(pwfile, "postgres\n", { mode: 0o644 });
    if (isRoot()) execFileSync("chown", ["-R", "postgres:postgres", dir, pwfile]);
    try {
      runPg("initdb", [
        "-D", dir, "-U", "postgres", "--pwfile", pwfile,
        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8",
      ]);
    } finally {
      spawnSync("rm", ["-f", pwfile]);
    }
    const confPath = join(dir, "postgresql.auto.conf");
    writeFileSync(confPath, clusterSettings(port));
    if (isRoot()) execFileSync("chown", ["postgres:postgres", confPath]);
  }
  if (isRunning(dir)) return { dataDir: dir, started: false };
  if (portAnswers(port)) {
    // Another checkout's cluster (same port, same credentials): two clusters cannot share the port.
    log(`a PostgreSQL already listens on 127.0.0.1:${port}; using it`);
    return { dataDir: dir, started: false };
  }
  runPg("pg_ctl", ["start", "-D", dir, "-l", join(dir, "server.log"), "-w", "-t", "60"]);
  log(`started PostgreSQL on 127.0.0.1:${port}`);
  return { dataDir: dir, started: true };
}

/** `immediate` stops without a clean shutdown, as a crash or a pulled plug would. */
export function stopCluster({ dir }: Cluster = localCluster(), mode: "fast" | "immediate" = "fast"): boolean {
  if (!isRunning(dir)) return false;
  runPg("pg_ctl", ["stop", "-D", dir, "-m", mode, "-w"]);
  return true;
}

/** Stops the cluster and deletes its folder; the next start initialises a new one. */
export function destroyCluster(cluster: Cluster = localCluster()): void {
  stopCluster(cluster);
  spawnSync("rm", ["-rf", cluster.dir]);
}
