// Runs the project's Supabase CLI (node_modules/.bin/supabase: the binary of the registry package
// @supabase/cli-linux-x64) on this checkout, with a home of its own so that no login, profile or
// linked project of the machine's takes part, and without telemetry or update checks.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Asynchronous, so that a stand-in server in this process can answer the CLI meanwhile. */
export async function supabase(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), "supabase-cli-home-"));
  try {
    return await new Promise<CliResult>((resolve, reject) => {
      const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "supabase"), ["--workdir", REPO_ROOT, ...args], {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          SUPABASE_TELEMETRY_DISABLED: "1",
          DO_NOT_TRACK: "1",
          SUPABASE_NO_UPDATE_NOTIFIER: "1",
          ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.once("error", reject);
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs a command with `--output-format json` and returns its answer; a failure throws with the CLI's output. */
export async function supabaseJson<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const result = await supabase([...args, "--output-format", "json"], env);
  if (result.status !== 0) {
    throw new Error(`supabase ${args.join(" ")} exited with ${result.status}:\n${result.stderr}${result.stdout}`);
  }
  if (/does not recognize/.test(result.stderr)) {
    throw new Error(`supabase/config.toml has keys the CLI ignores:\n${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}
