// Every code block of README.md and docs/, run against a local stack made the way `npm start` makes
// it (the seed's demo user and key, anvil with the demo collection and a funded sponsor, the local
// services: mailbox, jobs secret, local auth server; plus an OpenAI stand-in for the assistant):
// - sh: each doc's blocks in order in one bash (they share variables), with `set -euo pipefail` and
//   curl failing on an HTTP error; npm start's URL is pointed at the test's gateway, and the
//   variables npm start prints (JOBS_SECRET, ...) are set;
// - ts: transpiled and run by the machine's Node (20) without a global WebSocket, as an app on Node
//   20 runs them, with the names a snippet leaves to its reader (ANON_KEY, sessionToken) defined;
// - json: parsed; a block with request="METHOD /path" is sent as that request's body and must succeed;
// - sql: run as the database owner.
// A block marked no-run="<reason>" is skipped (tests/docs/docs.test.ts checks the reason and the count).
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoChain, startDemoChain } from "../../scripts/lib/demo-checkout.ts";
import { freePort, type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { LOCAL_ANON_KEY, type LocalServices, startLocalServices } from "../../scripts/lib/local-services.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { type OpenAIStandIn, startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { type CodeBlock, codeBlocks, docFiles } from "./markdown.ts";

/** npm start's root, which the docs print; the test's gateway listens elsewhere. */
const DOCS_ROOT = "http://127.0.0.1:54321";
/** supabase/seed.sql's demo user and key, which the docs use as npm start prints them. */
const DEMO_API_KEY = "sk_demo0000_local-demo-key-not-secret";
const DEMO_USER_ID = "65f000000000000000000001";

/** The machine's own node (npm's PATH puts node_modules/.bin first, whose `node` may be the node22 package). */
const systemPath = process.env.PATH!.split(delimiter).filter((dir) => !dir.includes("node_modules")).join(delimiter);
const run = promisify(execFile);

let t: TestContext;
let chain: DemoChain;
let services: LocalServices;
let standIn: OpenAIStandIn;
let gateway: GatewayProcess;
let sessionToken: string;
const logged: string[] = [];

beforeAll(async () => {
  t = await createTestContext();
  await t.owner.unsafe(await readFile(join(REPO_ROOT, "supabase", "seed.sql"), "utf8"));
  chain = await startDemoChain({ port: await freePort() });
  await chain.linkOwner({ ownerDatabaseUrl: t.url, userId: DEMO_USER_ID });
  services = await startLocalServices({}, { mailPort: 0, log: (line) => logged.push(line) });
  standIn = await startOpenAIStandIn();
  gateway = await startGatewayProcess({
    DATABASE_URL: t.url, ...chain.gatewayEnv({}), ...services.env,
    ASSISTANT_BASE_URL: `${standIn.url}/v1`, ASSISTANT_API_KEY: standIn.apiKey,
  }, 60_000);
  await chain.openStore({ apiRoot: gateway.url, apiKey: DEMO_API_KEY, port: await freePort(), log: (line) => logged.push(line) });
  await chain.fundSponsor({ apiRoot: gateway.url, apiKey: DEMO_API_KEY });
  sessionToken = JSON.parse((await run(join(REPO_ROOT, "node_modules", ".bin", "deno"), ["run", "-A", "scripts/admin.ts", "session", "--user", "demo@example.com", "--json"], {
    cwd: REPO_ROOT, env: shellEnvironment(),
  })).stdout).access_token;
}, 180_000);

afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await chain?.stop();
  await services?.stop();
  await standIn?.close();
  await t?.close();
});

/** What a reader of the docs has after `npm start`: its database, URL and printed secrets. */
function shellEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, ...services.env, DATABASE_URL: t.url, PUBLIC_API_ROOT: gateway.url };
}

const pointedAtGateway = (code: string) => code.replaceAll(DOCS_ROOT, gateway.url);
const runnable = (lang: string) => (block: CodeBlock) => block.lang === lang && !("no-run" in block.attributes);
function byFile(list: CodeBlock[]): Map<string, CodeBlock[]> {
  const files = new Map<string, CodeBlock[]>();
  for (const block of list) files.set(block.file, [...(files.get(block.file) ?? []), block]);
  return files;
}
const blocks = docFiles().flatMap(codeBlocks);

describe("the docs' shell blocks", () => {
  for (const [file, shellBlocks] of byFile(blocks.filter(runnable("sh")))) {
    it(`run in order: ${file} (${shellBlocks.length} blocks)`, async () => {
      const script = [
        "set -euo pipefail",
        "curl() { command curl --fail-with-body --max-time 30 \"$@\"; }",
        ...shellBlocks.flatMap((block) => [`echo "@@ ${block.file}:${block.line}" >&2`, pointedAtGateway(block.code)]),
      ].join("\n");
      const result = await run("bash", ["-c", script], { cwd: REPO_ROOT, env: shellEnvironment(), timeout: 120_000 })
        .catch((failure: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`a block failed (the last @@ names it):\n${failure.stderr ?? ""}\n${failure.stdout ?? failure.message}`);
        });
      expect(result.stdout).not.toBe("");
    }, 180_000);
  }
});

describe("the docs' TypeScript blocks", () => {
  for (const block of blocks.filter(runnable("ts"))) {
    it(`run: ${block.file}:${block.line}`, async () => {
      const program = [
        `const ANON_KEY = ${JSON.stringify(LOCAL_ANON_KEY)};`,
        "const sessionToken = process.env.SNIPPET_SESSION_TOKEN;",
        ts.transpileModule(pointedAtGateway(block.code), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText,
      ].join("\n");
      const dir = join(REPO_ROOT, ".local", "docs-snippets"); // inside the checkout, so its imports resolve
      await mkdir(dir, { recursive: true });
      const path = join(dir, `${block.file.replace(/\W/g, "-")}-${block.line}-${process.pid}.mjs`);
      await writeFile(path, program);
      try {
        await run("node", ["--no-experimental-websocket", path], {
          cwd: REPO_ROOT, timeout: 30_000,
          env: { ...shellEnvironment(), PATH: systemPath, SNIPPET_SESSION_TOKEN: sessionToken },
        }).catch((failure: { stderr?: string; message: string }) => {
          throw new Error(`${block.file}:${block.line} failed:\n${failure.stderr || failure.message}`);
        });
      } finally {
        await rm(path, { force: true });
      }
    });
  }
});

describe("the docs' JSON blocks", () => {
  for (const block of blocks.filter(runnable("json"))) {
    it(`parse${block.attributes.request ? ` and are accepted by ${block.attributes.request}` : ""}: ${block.file}:${block.line}`, async () => {
      const body = JSON.parse(block.code);
      if (!block.attributes.request) return;
      const [method, path] = block.attributes.request.split(" ") as [string, string];
      const response = await fetch(`${gateway.url}${path}`, {
        method, headers: { "x-api-key": DEMO_API_KEY, "content-type": "application/json" }, body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    });
  }
});

describe("the docs' SQL blocks", () => {
  for (const block of blocks.filter(runnable("sql"))) {
    it(`run as the owner: ${block.file}:${block.line}`, async () => {
      await t.owner.unsafe(block.code);
    });
  }
});
