// `supabase functions deploy` ships every function with what it needs on Supabase. The CLI deploys
// all of supabase/functions to a stand-in of the Management API on 127.0.0.1 (named by a --profile
// file), which keeps what it receives: per function the settings the CLI took from
// supabase/config.toml and the files it uploads for bundling on Supabase's side (--use-api, what the
// CLI does without Docker).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { supabase } from "./supabase-cli.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const PROJECT_REF = "standinprojectrefabc";
const FUNCTIONS_DIR = join(REPO_ROOT, "supabase", "functions");

interface DeployMetadata {
  name: string;
  entrypoint_path: string;
  import_map_path: string;
  static_patterns: string[];
  verify_jwt?: boolean;
}

interface Deployment {
  metadata: DeployMetadata;
  /** Uploaded files by their path in the repository. */
  files: Map<string, string>;
}

/** The Management API endpoints `functions deploy` calls; each function's upload is kept by its slug. */
async function startManagementApiStandIn(): Promise<{ url: string; deployments: Map<string, Deployment>; server: Server }> {
  const deployments = new Map<string, Deployment>();
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(request.url ?? "/", "http://stand-in");
    const answer = (status: number, json: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(json));
    };
    const functionsPath = `/v1/projects/${PROJECT_REF}/functions`;
    const slug = url.searchParams.get("slug");
    if (request.method === "POST" && url.pathname === `${functionsPath}/deploy` && slug) {
      const form = await new Response(body, { headers: { "content-type": request.headers["content-type"] ?? "" } }).formData();
      const files = new Map<string, string>();
      for (const file of form.getAll("file")) {
        if (typeof file !== "string") files.set(file.name, await file.text());
      }
      deployments.set(slug, { metadata: JSON.parse(String(form.get("metadata"))), files });
      return answer(201, { id: slug, slug, name: slug, status: "ACTIVE", version: 1, created_at: 0, updated_at: 0 });
    }
    if (request.method === "GET" && url.pathname === functionsPath) return answer(200, []);
    if (request.method === "PUT" && url.pathname === functionsPath) return answer(200, JSON.parse(body.toString()));
    return answer(404, { message: `the stand-in does not serve ${request.method} ${url.pathname}` });
  });
  await listenOnLoopback(server);
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, deployments, server };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Packages named by a module's static imports and re-exports; `node:` built-ins and relative paths left out. */
function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:^|[;\s])(?:import|export)\s(?:[^'";]*?\sfrom\s*)?["']([^"'./][^"']*)["']/g)]
    .map((match) => match[1]!)
    .filter((specifier) => !specifier.startsWith("node:"));
  return specifiers.map((specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/"));
}

const lockedVersion = (name: string): string | undefined =>
  JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")).packages[`node_modules/${name}`]?.version;

const functionNames = readdirSync(FUNCTIONS_DIR).filter((name) => existsSync(join(FUNCTIONS_DIR, name, "index.ts"))).sort();
let deployments: Map<string, Deployment>;
let standIn: Server;
let workDir: string;

beforeAll(async () => {
  const api = await startManagementApiStandIn();
  standIn = api.server;
  deployments = api.deployments;
  workDir = mkdtempSync(join(tmpdir(), "supabase-deploy-"));
  const profile = join(workDir, "stand-in-profile.json");
  writeFileSync(profile, JSON.stringify({ name: "stand-in", api_url: api.url, dashboard_url: api.url, project_host: "stand-in.test" }));
  const result = await supabase(["functions", "deploy", "--use-api", "--yes", "--profile", profile, `--remote=${PROJECT_REF}`], {
    SUPABASE_ACCESS_TOKEN: `sbp_${"0".repeat(40)}`,
  });
  if (result.status !== 0 || /does not recognize/.test(result.stderr)) {
    throw new Error(`supabase functions deploy exited with ${result.status}:\n${result.stderr}${result.stdout}`);
  }
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => standIn?.close(resolve));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe("supabase functions deploy", () => {
  it("deploys every function folder", () => {
    expect(functionNames).toContain("api");
    expect([...deployments.keys()].sort()).toEqual(functionNames);
  });

  describe.each(functionNames)("%s", (name) => {
    const folder = `supabase/functions/${name}`;
    const deployment = () => deployments.get(name)!;

    it("is deployed without the platform's JWT check (config.toml: the function checks its own credentials)", () => {
      expect(deployment().metadata.verify_jwt).toBe(false);
    });

    it("uploads its entrypoint and its deno.json as the import map", () => {
      expect(deployment().metadata).toMatchObject({ entrypoint_path: `${folder}/index.ts`, import_map_path: `${folder}/deno.json` });
      expect(deployment().files.has(`${folder}/index.ts`)).toBe(true);
      expect(deployment().files.has(`${folder}/deno.json`)).toBe(true);
    });

    it("uploads every file of its folder that is not a module: the static files it serves", () => {
      const staticFiles = filesUnder(join(FUNCTIONS_DIR, name))
        .map((path) => relative(REPO_ROOT, path))
        .filter((path) => !path.endsWith(".ts"));
      expect(staticFiles.filter((path) => !deployment().files.has(path))).toEqual([]);
    });

    it("maps each package its modules import, and only those, to the version package-lock.json installs", () => {
      // A dynamic import is left out on purpose: the checkout page loads TypeScript only where
      // packages/sdk sits beside the function, which a deployment never has.
      const imported = new Set(
        [...deployment().files].filter(([path]) => path.endsWith(".ts")).flatMap(([, source]) => importedPackages(source)),
      );
      const importMap: Record<string, string> = JSON.parse(deployment().files.get(`${folder}/deno.json`)!).imports;
      expect(Object.keys(importMap).sort()).toEqual([...imported].sort());
      for (const [pkg, target] of Object.entries(importMap)) {
        expect(target, pkg).toBe(`npm:${pkg}@${lockedVersion(pkg)}`);
      }
    });
  });
});
