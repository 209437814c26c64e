// A stand-in (a third party's server) in a process of its own, so that its work does not share the
// measured service's thread. The script prints its URL on a line of its own and serves until its
// stdin closes.
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { REPO_ROOT } from "../lib/local-postgres.ts";

/** `script` (under scripts/bench) started with `env`; its URL once it listens. */
export async function startStandInProcess(script: string, env: Record<string, string> = {}): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "deno"), ["run", "-A", join("scripts", "bench", script)], {
    cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((l) => l.startsWith("http"));
      if (line) resolve(line.trim());
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return { url, close: () => new Promise((resolve) => { child.once("exit", () => resolve()); child.stdin!.end(); }) };
}
