// A deployed function runs postgres.js as published (its deno.json maps `postgres` to the npm package;
// patches/postgres+3.4.9.patch reaches node_modules only). The service's own Database must survive the
// database stopping under it there too: the process stays up, every transaction ends (none waits on a
// connection that was lost), and once the database is back the same connections serve again. Code
// that used the driver's own begin() would still meet its faults there: the process must stay up.
// The database is the rig's own throwaway cluster, never the shared one.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutageRig, startOutageRig } from "../../scripts/lib/database-outage.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";

const STOP_AFTER_MS = [100, 300, 100];

let rig: OutageRig;

beforeAll(async () => {
  rig = await startOutageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

interface Counts {
  answered: number;
  refused: number;
}

/** The load script as Supabase runs a function: the api function's deno.json, no node_modules. */
function startHostedLoad(mode: "service" | "postgres-begin" = "service"): { child: ChildProcess; output: () => string; latest: () => Counts | undefined; exited: Promise<number | null> } {
  const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "deno"), [
    "run", "-A", "--config", "supabase/functions/api/deno.json", "--node-modules-dir=none", "--no-lock",
    "tests/e2e/hosted/database-under-load.ts", rig.ownerUrl, mode,
  ], { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const latest = () => {
    const line = output.split("\n").filter((l) => l.startsWith("{")).at(-1);
    return line ? JSON.parse(line) as Counts : undefined;
  };
  return { child, output: () => output, latest, exited };
}

/** Starts the load, stops the database `stopAfterMs` into it for 1.5 s; the answers counted when it started again. */
async function loadThroughStop(load: ReturnType<typeof startHostedLoad>, stopAfterMs: number): Promise<number> {
  // The first run downloads the function's packages from the registry.
  expect(await until(() => (load.latest()?.answered ?? 0) > 0, 120_000), load.output()).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, stopAfterMs));
  rig.stopDatabase("immediate");
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  rig.startDatabase();
  return load.latest()!.answered;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("the published postgres.js under the service's Database, the database stopping under load", () => {
  it.each(STOP_AFTER_MS.map((ms, round) => [round + 1, ms]))(
    "round %i: stopped %i ms into the load: the process stays up, every transaction ends, and it serves again once the database is back",
    async (_, stopAfterMs) => {
      const load = startHostedLoad();
      try {
        const answeredAtRestart = await loadThroughStop(load, stopAfterMs);
        const servesAgain = await until(() => load.child.exitCode !== null || load.latest()!.answered >= answeredAtRestart + 100, 20_000);
        expect(load.child.exitCode, load.output().slice(-2_000)).toBeNull();
        expect(servesAgain, load.output().slice(-2_000)).toBe(true);
        // Every loop ends once asked to: no transaction is left waiting on a lost connection.
        load.child.stdin!.end();
        const exitCode = await Promise.race([load.exited, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 15_000))]);
        expect(exitCode, load.output().slice(-2_000)).toBe(0);
      } finally {
        if (load.child.exitCode === null) load.child.kill("SIGKILL");
      }
    },
    180_000,
  );
});

describe("postgres.js's own begin() (which the service does not use) under the same stop", () => {
  it.each(STOP_AFTER_MS.map((ms, round) => [round + 1, ms]))(
    "round %i: stopped %i ms into the load: the process stays up (the driver's uncatchable faults are logged, not fatal)",
    async (_, stopAfterMs) => {
      const load = startHostedLoad("postgres-begin");
      try {
        await loadThroughStop(load, stopAfterMs);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(load.child.exitCode, load.output().slice(-2_000)).toBeNull();
      } finally {
        if (load.child.exitCode === null) load.child.kill("SIGKILL");
      }
    },
    180_000,
  );
});
