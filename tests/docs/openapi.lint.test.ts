// The served OpenAPI document as integrators lint it: Redocly CLI (`recommended`, redocly.yaml) and
// Spectral (`spectral:oas`, .spectral.yaml), the versions package.json pins.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const bin = (name: string) => join(ROOT, "node_modules/.bin", name);

let t: TestContext;
let dir: string;
/** Each served document: the API's, and the local auth server's own (/auth/v1/openapi.json). */
const DOCUMENTS = { api: "/api/v3/openapi", "local auth": "/auth/v1/openapi.json" };
const documentPaths: Record<string, string> = {};
beforeAll(async () => {
  // With the local auth server on, so that its document is served and linted too.
  t = await createTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey() });
  dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  for (const [name, url] of Object.entries(DOCUMENTS)) {
    const response = await t.call(url);
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    documentPaths[name] = join(dir, `${name.replace(/\W/g, "-")}.json`);
    writeFileSync(documentPaths[name], await response.text());
  }
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** A linter's stdout whatever its exit status (both exit non-zero when they find errors). */
async function stdoutOf(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (!stdout) throw error;
    return stdout;
  }
}

type Problem = { rule: string; severity: "error" | "warning"; where: string };

/** Counts by severity and rule, e.g. "warning operation-description: 3". */
function summary(problems: Problem[]): string[] {
  const counts = new Map<string, number>();
  for (const { severity, rule } of problems) counts.set(`${severity} ${rule}`, (counts.get(`${severity} ${rule}`) ?? 0) + 1);
  return [...counts].map(([key, count]) => `${key}: ${count}`).sort();
}

describe("the OpenAPI document passes the integrators' linters", () => {
  it.each(Object.keys(DOCUMENTS))("Redocly recommended: %s", { timeout: 120_000 }, async (name) => {
    const output = JSON.parse(await stdoutOf(bin("redocly"), ["lint", documentPaths[name]!, "--config", "redocly.yaml", "--format", "json"]));
    const problems: Problem[] = output.problems.map((p: { ruleId: string; severity: string; location?: Array<{ pointer?: string }> }) =>
      ({ rule: p.ruleId, severity: p.severity === "error" ? "error" : "warning", where: p.location?.[0]?.pointer ?? "" }));
    console.log(`redocly ${name}:`, summary(problems));
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(problems.filter((p) => p.severity === "warning")).toEqual([]);
  });

  it.each(Object.keys(DOCUMENTS))("Spectral spectral:oas: %s", { timeout: 120_000 }, async (name) => {
    const output = JSON.parse(await stdoutOf(bin("spectral"), ["lint", documentPaths[name]!, "--ruleset", ".spectral.yaml", "--format", "json", "--quiet"]) || "[]");
    const problems: Problem[] = output.filter((p: { severity: number }) => p.severity <= 1).map((p: { code: string; severity: number; path: string[] }) =>
      ({ rule: p.code, severity: p.severity === 0 ? "error" : "warning", where: p.path.join(".") }));
    console.log(`spectral ${name}:`, summary(problems));
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(problems.filter((p) => p.severity === "warning")).toEqual([]);
  });
});
