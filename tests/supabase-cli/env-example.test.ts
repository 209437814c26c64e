// .env.example names every variable the service reads (config.ts's schema), each once with a
// comment line above it, and is a file `supabase secrets set --env-file` takes: the real CLI sends
// its set lines to a stand-in of the Management API on 127.0.0.1 (named by a --profile file).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { CONFIG_VARIABLES, loadConfig } from "../../supabase/functions/_shared/config.ts";
import { PRODUCTION_REQUIREMENTS } from "../setup/test-context.ts";
import { supabase } from "./supabase-cli.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const PROJECT_REF = "standinprojectrefabc";
const text = readFileSync(join(REPO_ROOT, ".env.example"), "utf8");
const lines = text.split("\n");
/** `KEY=value` set, or `# KEY=value` left at its default; the name and the line's index. */
const ASSIGNMENT = /^(# )?([A-Z][A-Z0-9_]*)=(.*)$/;
const assignments = lines.flatMap((line, index) => {
  const match = ASSIGNMENT.exec(line);
  return match ? [{ name: match[2]!, set: !match[1], value: match[3]!, index }] : [];
});

describe(".env.example", () => {
  it("names exactly the variables of config.ts, each once", () => {
    const names = assignments.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("is KEY=value lines and # comments only, with a one-line comment above each variable", () => {
    for (const [index, line] of lines.entries()) {
      expect(line === "" || line.startsWith("#") || ASSIGNMENT.test(line), `line ${index + 1}: ${line}`).toBe(true);
    }
    for (const { name, index } of assignments) {
      const above = lines[index - 1] ?? "";
      expect(above.startsWith("# ") && !ASSIGNMENT.test(above), `${name} has no comment line above it`).toBe(true);
    }
  });

  it("gives defaults and examples the service accepts, placeholders aside", () => {
    for (const { name, value } of assignments) {
      if (/<[^>]*>|\.\.\./.test(value)) continue; // a value to fill in
      const parsed = parseEnv(`${name}=${value}`)[name]!;
      const required = { ...PRODUCTION_REQUIREMENTS, SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"), GATEWAY_DATABASE_URL: "postgres://api_gateway@127.0.0.1/x", GEOCODER_URL: "https://photon.example" };
      expect(() => loadConfig({ ...required, [name]: parsed }), `${name}=${value}`).not.toThrow();
    }
  });

  it("is taken by `supabase secrets set --env-file`, which sends exactly its set lines", async () => {
    const received: Array<{ name: string; value: string }> = [];
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (request.method === "POST" && request.url === `/v1/projects/${PROJECT_REF}/secrets`) {
        received.push(...JSON.parse(Buffer.concat(chunks).toString()));
        response.writeHead(201).end();
        return;
      }
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: `not served: ${request.method} ${request.url}` }));
    });
    await listenOnLoopback(server);
    const workDir = mkdtempSync(join(tmpdir(), "supabase-secrets-"));
    try {
      const apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const profile = join(workDir, "stand-in-profile.json");
      writeFileSync(profile, JSON.stringify({ name: "stand-in", api_url: apiUrl, dashboard_url: apiUrl, project_host: "stand-in.test" }));
      const result = await supabase(["secrets", "set", "--yes", "--env-file", join(REPO_ROOT, ".env.example"), "--profile", profile, `--remote=${PROJECT_REF}`], {
        SUPABASE_ACCESS_TOKEN: `sbp_${"0".repeat(40)}`,
      });
      expect(result.status, `${result.stderr}${result.stdout}\n${JSON.stringify(received)}`).toBe(0);
      const expected = parseEnv(assignments.filter((a) => a.set).map((a) => `${a.name}=${a.value}`).join("\n"));
      expect(Object.fromEntries(received.map((secret) => [secret.name, secret.value]))).toEqual(expected);
      expect(expected.MAIL_FROM).toBe("Events MCP <no-reply@example.com>");
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
