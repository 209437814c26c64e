// docs/configuration.md documents exactly the environment variables the project reads: the service's
// own (config.ts's schema, the same list .env.example is checked against in
// tests/supabase-cli/env-example.test.ts) and those the scripts and test suites read themselves,
// found in their source. A variable read but not documented, or documented but no longer read, fails.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { CONFIG_VARIABLES } from "../../supabase/functions/_shared/config.ts";
import { proseLines } from "./markdown.ts";

/** The operating system's own, which every process inherits; not the project's settings. */
const SYSTEM_VARIABLES = new Set(["PATH", "HOME"]);

/** Reads of one variable by name: process.env.X, process.env["X"], Deno.env.get("X"), env.X (an Environment), env("X"). */
const READS = [
  /process\.env\.([A-Z][A-Z0-9_]+)\b(?!\s*=[^=])/g,
  /process\.env\[["']([A-Z][A-Z0-9_]+)["']\]/g,
  /Deno\.env\.get\(["']([A-Z][A-Z0-9_]+)["']\)/g,
  /\benv\.([A-Z][A-Z0-9_]+)\b(?!\s*=[^=])/g,
  /\benv\(["']([A-Z][A-Z0-9_]+)["']\)/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name) && !entry.name.includes(".generated."))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes("node_modules"));
}

/** Every variable the service (its config schema) and the scripts and tests (by name, in their source) read. */
function variablesRead(): Set<string> {
  const read = new Set(CONFIG_VARIABLES);
  for (const file of ["supabase", "scripts", "tests"].flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    for (const pattern of READS) for (const match of text.matchAll(pattern)) read.add(match[1]!);
  }
  for (const name of SYSTEM_VARIABLES) read.delete(name);
  return read;
}

/** The variables named in the first column of docs/configuration.md's tables. */
function variablesDocumented(): string[] {
  return proseLines("docs/configuration.md")
    .filter(({ text }) => text.startsWith("| `"))
    .flatMap(({ text }) => [...text.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

describe("docs/configuration.md", () => {
  it("documents every variable the service, its scripts and its tests read, and no other, each once", () => {
    const documented = variablesDocumented();
    expect(documented.length, "a variable documented twice").toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual([...variablesRead()].sort());
  });

  it("gives each a default and a meaning", () => {
    const rows = proseLines("docs/configuration.md").filter(({ text }) => text.startsWith("| `"));
    for (const { line, text } of rows) {
      const [, , defaultValue, meaning] = text.split(/(?<!\\)\|/);
      expect(defaultValue?.trim(), `line ${line}: no default`).toBeTruthy();
      expect(meaning?.trim(), `line ${line}: no meaning`).toBeTruthy();
    }
  });

  it("finds reads in the source by every form the project uses", () => {
    // A guard for the scan itself: each form above finds a variable known to be read that way.
    for (const name of ["DATABASE_URL", "GATEWAY_DATABASE_URL", "DEMO_MAIL_PORT", "SUI_PACKAGE_ID", "FUZZ_SEED", "JOBS_SECRET"]) {
      expect(variablesRead(), name).toContain(name);
    }
  });
});
