// The backend MCP endpoint's toolsets, on the real Deno gateway as deployed: the size of the
// tools/list answer for every tool, for each toolset and in read-only mode (the bytes of the answer's
// body as sent to a client that takes no compression, the tools array's JSON, and gzipped as sent to
// one that does), and tools/list p50 at one connection (latency, no queueing) with every tool and
// with the smallest toolset; target under 5 ms either way. Beside it, the same served in process (no
// HTTP, no database), which a loaded machine disturbs less.
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { backendTools } from "../../supabase/functions/api/app.ts";
import { selectTools, toolsetsOf } from "../../supabase/functions/_shared/mcp/toolsets.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { benchUserDatabase } from "./identity.ts";
import { badAnswers, inProcessToolsListMs, luaScript, mcpHeaders, mcpRequest } from "./mcp.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, runWrk } from "./wrk.ts";

const ENDPOINT = "/mcp/backend";
const listTools = mcpRequest("2026-07-28", "tools/list", {});

interface ListingSize {
  choice: string;
  path: string;
  tools: number;
  /** The answer's body as sent without compression. */
  bodyBytes: number;
  /** JSON.stringify of the answer's tools array. */
  toolsBytes: number;
  /** The body gzipped (what a client that accepts gzip receives, about). */
  gzipBytes: number;
}

async function sizeOf(base: string, key: string, choice: string, path: string): Promise<ListingSize> {
  const response = await fetch(base + path, { method: "POST", headers: mcpHeaders(key, "2026-07-28", "tools/list"), body: listTools });
  const text = await response.text();
  const json = text.startsWith("{") ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)![1]!);
  const tools = json.result?.tools;
  if (response.status !== 200 || !Array.isArray(tools)) throw new Error(`tools/list on ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  const body = Buffer.from(text);
  return { choice, path, tools: tools.length, bodyBytes: body.byteLength, toolsBytes: Buffer.byteLength(JSON.stringify(tools)), gzipBytes: gzipSync(body).byteLength };
}

export async function benchMcpToolsets(options: { seconds: number }) {
  ensureWrk();
  const { url, key } = await benchUserDatabase({}, "bench_mcp_toolsets");
  const gateway = await startGatewayProcess({ DATABASE_URL: url, MCP_RATE_LIMIT_PER_MINUTE: "1000000", ...AS_DEPLOYED });
  try {
    const choices: Array<[string, string]> = [
      ["every tool", ENDPOINT],
      ["read-only", `${ENDPOINT}/readonly`],
      ...toolsetsOf(backendTools).map((toolset): [string, string] => [`toolset ${toolset}`, `${ENDPOINT}/x/${toolset}`]),
    ];
    const sizes: ListingSize[] = [];
    for (const [choice, path] of choices) sizes.push(await sizeOf(gateway.url, key, choice, path));
    const toolsets = sizes.filter((size) => size.choice.startsWith("toolset "));
    const smallest = toolsets.reduce((a, b) => (b.bodyBytes < a.bodyBytes ? b : a));

    const all = luaScript(join(BENCH_DIR, "mcp-toolsets-all.lua"), "POST", ENDPOINT, mcpHeaders(key, "2026-07-28", "tools/list"), listTools, '"tools"');
    const small = luaScript(join(BENCH_DIR, "mcp-toolsets-smallest.lua"), "POST", smallest.path, mcpHeaders(key, "2026-07-28", "tools/list"), listTools, '"tools"');
    const load = { connections: 1, seconds: options.seconds };
    runWrk("warm-up", gateway.url, { ...load, seconds: 2, script: all });
    runWrk("warm-up", gateway.url, { ...load, seconds: 2, script: small });
    const allRow = runWrk(`tools/list, every tool (${sizes[0]!.tools})`, gateway.url, { ...load, script: all });
    const allBad = badAnswers(all);
    const smallRow = runWrk(`tools/list, ${smallest.choice} (${smallest.tools})`, gateway.url, { ...load, script: small });
    const smallBad = badAnswers(small);
    const smallestToolset = smallest.choice.slice("toolset ".length);
    const inProcess = {
      allMs: await inProcessToolsListMs(),
      smallestMs: await inProcessToolsListMs(selectTools(backendTools, { toolsets: new Set([smallestToolset]), readOnly: false })),
    };

    console.log("| choice | path | tools | body bytes | tools array bytes | gzipped bytes |\n|---|---|---|---|---|---|");
    for (const s of sizes) console.log(`| ${s.choice} | ${s.path} | ${s.tools} | ${s.bodyBytes} | ${s.toolsBytes} | ${s.gzipBytes} |`);
    console.log(`\n${formatTable([allRow, smallRow])}`);
    console.log(`\nanswers that were not a tool list: every tool ${allBad}, ${smallest.choice} ${smallBad}`);
    console.log(`tools/list at 1 connection: p50 ${allRow.p50Ms.toFixed(2)} ms with every tool, ${smallRow.p50Ms.toFixed(2)} ms with ${smallest.choice} (target < 5 ms)`);
    console.log(`tools/list served in process (new server, schemas, answer): p50 ${inProcess.allMs.toFixed(2)} ms with every tool, ` +
      `${inProcess.smallestMs.toFixed(2)} ms with ${smallest.choice}`);
    return { sizes, smallest: smallest.choice, rows: [allRow, smallRow], inProcess, badAnswers: { all: allBad, smallest: smallBad } };
  } finally {
    await gateway.stop("SIGKILL");
  }
}
