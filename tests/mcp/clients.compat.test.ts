// The MCP clients people run, against both endpoints on the real Deno gateway (as `npm start` runs
// it): every answer passes each client's own validation, and a tool's error reaches the model as an
// isError result whose text carries the error code, with no structuredContent (which the clients
// would check against the tool's output schema, meant for answers).
//
// - The TypeScript SDK 1.x Client (@modelcontextprotocol/sdk, pinned: what Claude Desktop, Cursor
//   and most agents run) validates a result's structuredContent against the tool's output schema
//   and throws on a mismatch, errors included. Full sweep: every tool of each endpoint once with
//   valid arguments (CALLS below, each building on the answers before it) and once with invalid ones;
//   each answers, and its answer passes validation, except the few REFUSED_HERE for want of a chain.
// - The SDK v2 Client (@modelcontextprotocol/client, what the service itself uses): full sweep.
// - mcp-remote (pinned), the stdio bridge desktop assistants run, driven by the 1.x Client over stdio:
//   one process per endpoint (x-api-key for the backend; its own OAuth flow for the public endpoint,
//   oauth-driver.ts playing the person), full sweep.
// - The MCP Inspector CLI (pinned, `--cli`, Node 22 through the `node22` package): one process per
//   call (about 0.4 s each), full sweep too; the public endpoint with a Bearer token from the OAuth flow.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from "@modelcontextprotocol/client";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { freePort } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { completeAuthorization, type OAuthGateway, startBrowserDriver, startOAuthGateway, tokensOverHttp } from "./oauth-driver.ts";

const NODE22 = join(REPO_ROOT, "node_modules", "node22", "bin", "node");
const INSPECTOR = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
const MCP_REMOTE = join(REPO_ROOT, "node_modules", "mcp-remote", "dist", "proxy.js");

const EMAIL = "compat@example.com";
const UNKNOWN_ID = "65f1c0a2b3d4e5f601234567";
const WALLET = "0x1111111111111111111111111111111111111111";
const TARGET = "0x2222222222222222222222222222222222222222";
const TX_HASH = `0x${"ab".repeat(32)}`;
const CHAIN_ID = 31337;
const EXAMPLE_SITE = "https://shop.example.com";

type Args = Record<string, unknown>;
/** A tool result as every client hands it over. */
interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
}
/** A tool as tools/list shows it, as far as the sweep reads it. */
type ListedTool = { name: string; inputSchema: { properties?: Record<string, unknown> } };
/** What both SDK clients offer (each validates in its own way). */
interface SdkClient {
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: { name: string; arguments: Args }): Promise<unknown>;
  close(): Promise<void>;
}

/** The answers a sweep got so far, by tool: later calls use the ids earlier ones created. */
type Answers = Map<string, Record<string, unknown>>;
/** What the sweeps read and do not make themselves, made behind the API's back or by another person. */
interface World {
  otherUserId: string;
  /** A published hub of the other person's, to join and leave. */
  othersHubId: string;
  /** A collection of the person's, inserted directly (registering one reads its chain). */
  collectionId: string;
  /** A checkout session of that collection, made through REST. */
  checkout: { checkoutId: string; clientSecret: string };
  /** Another one, paid (completed directly: payment reads a chain), with a failed webhook delivery. */
  paidCheckoutId: string;
}
const id = (answers: Answers, tool: string, field = "id") => answers.get(tool)?.[field] as string | undefined;
const eventId = (a: Answers) => id(a, "create_event");
const reservation = (a: Answers) => ({ eventId: eventId(a), reservationId: id(a, "reserve_spot") });
const sponsor = { walletAddress: WALLET, chainId: CHAIN_ID };
let orders = 0;
/** A checkout request for one pass of `collectionId`, a new store order each time. */
const checkoutRequest = (collectionId: string) => ({
  collectionId, externalOrderId: `order-${++orders}`, paymentMethods: ["crypto_wallet"], allowedOrigin: EXAMPLE_SITE,
  webhookUrl: `${EXAMPLE_SITE}/hook`,
  items: [{ name: "Pass", description: "", mintPrice: "0", image: "https://example.com/pass.png", externalProductRef: "p1", quantity: 1 }],
});

/**
 * Valid arguments for every tool of both endpoints, in the order a sweep calls them. Valid means the
 * tool's input schema accepts them: the answer may still be the operation's error (an unknown id, no
 * chain to read), which must reach the client as an isError result like any other.
 */
const CALLS: Record<string, (answers: Answers, world: World) => Args> = {
  get_me: () => ({}),
  list_operations: () => ({}),
  call_api: () => ({ operationId: "getMe" }),
  list_events: () => ({ scope: "mine" }),
  create_event: () => eventBody({ status: "PUBLISHED" }), // published: open for reservations
  get_event: (a) => ({ eventId: eventId(a) }),
  update_event: (a) => ({ eventId: eventId(a), changes: { name: "Renamed by an MCP client" } }),
  list_hubs: () => ({}),
  create_hub: () => ({ name: "Compat hub", hubType: "group", status: "PUBLISHED" }),
  get_hub: (a) => ({ hubId: id(a, "create_hub") }),
  update_hub: (a) => ({ hubId: id(a, "create_hub"), changes: { name: "Renamed hub" } }),
  join_hub: (_, w) => ({ hubId: w.othersHubId }),
  leave_hub: (_, w) => ({ hubId: w.othersHubId }),
  search_venues: () => ({ q: "Berlin" }),
  register_nft_collection: () => ({ chainId: CHAIN_ID, address: TARGET, pricing: "static", mintPrice: "1000" }),
  list_nft_collections: () => ({}),
  get_nft_collection: (_, w) => ({ collectionId: w.collectionId }),
  publish_sui_collection: () => ({
    network: "sui:localnet", clientReference: "compat-1", name: "Compat passes", imageUrl: "https://example.com/pass.png",
    projectUrl: "https://example.com", organiserAddress: `0x${"a".repeat(64)}`,
  }),
  list_sui_collections: () => ({}),
  get_sui_collection: () => ({ collectionId: UNKNOWN_ID }),
  create_checkout_session: (_, w) => checkoutRequest(w.collectionId),
  get_checkout_session: (_, w) => w.checkout,
  retry_checkout_webhook: (_, w) => ({ checkoutId: w.paidCheckoutId }),
  list_checkout_webhook_deliveries: (_, w) => ({ checkoutId: w.paidCheckoutId }),
  build_checkout_payment: (_, w) => ({ ...w.checkout, payment: { payerAddress: WALLET, embeddingOrigin: EXAMPLE_SITE } }),
  confirm_checkout_payment: (_, w) => ({ ...w.checkout, txHash: TX_HASH }),
  encode_contract_call: () => ({ signature: "function transfer(address to, uint256 amount)", args: [TARGET, "1"] }),
  get_sponsorship_balance: () => sponsor,
  list_sponsorship_usage: () => sponsor,
  list_sponsorship_deposits: () => sponsor,
  get_sponsorship_settings: () => sponsor,
  check_sponsorship_eligibility: () => ({
    ...sponsor, operationType: "check_in", clientId: "compat", targetAddress: TARGET, callData: "0x", actorAddress: WALLET, maxCostWei: "1000",
  }),
  complete_sponsored_transaction: () => ({
    reservationId: UNKNOWN_ID, clientId: "compat", targetAddress: TARGET, callData: "0x", txHash: TX_HASH, mode: "eoa", actorAddress: TARGET,
  }),
  cancel_sponsored_transaction: () => ({ reservationId: UNKNOWN_ID, clientId: "compat", targetAddress: TARGET, callData: "0x" }),
  record_sponsorship_deposit: () => ({ ...sponsor, txHash: TX_HASH }),
  record_sponsorship_usage: () => ({ ...sponsor, operationType: "check_in", actorAddress: WALLET, txHash: TX_HASH, amountWei: "1" }),
  list_my_wallets: () => ({}),
  request_wallet_link: () => ({ chainId: CHAIN_ID }),
  request_sponsorship_settings_change: () => sponsor,
  request_sponsored_deposit: () => ({ ...sponsor, amountWei: "1" }),
  get_confirmation_status: (a) => ({ confirmationId: id(a, "request_wallet_link", "confirmationId") ?? UNKNOWN_ID }),
  reserve_spot: (a) => ({ eventId: eventId(a) }),
  list_my_reservations: () => ({}),
  get_reservation: reservation,
  get_my_ticket: reservation,
  get_my_ticket_link: reservation,
  reissue_ticket: reservation,
  get_event_access: (a) => ({ eventId: eventId(a) }),
  list_event_reservations: (a) => ({ eventId: eventId(a) }),
  approve_reservation: reservation,
  check_in: (a) => ({ eventId: eventId(a), method: "manual", reservationId: id(a, "reserve_spot"), nonce: "compat-nonce-1", deviceId: "compat" }),
  check_in_by_reservation: (a) => ({ ...reservation(a), nonce: "compat-nonce-2" }),
  undo_check_in: (a) => ({ eventId: eventId(a), scanId: id(a, "check_in") ?? id(a, "check_in_by_reservation") }),
  record_offline_scans: (a) => ({
    eventId: eventId(a), deviceId: "compat-offline",
    scans: [{ method: "manual", reservationId: id(a, "reserve_spot"), nonce: "compat-offline-1", scannedAt: new Date().toISOString() }],
  }),
  get_check_in_counts: (a) => ({ eventId: eventId(a) }),
  get_check_in_manifest: (a) => ({ eventId: eventId(a) }),
  get_check_in_settings: (a) => ({ eventId: eventId(a) }),
  save_check_in_settings: (a) => ({ eventId: eventId(a), settings: { capacity: 100 } }),
  list_check_in_staff: (a) => ({ eventId: eventId(a) }),
  add_check_in_staff: (a, w) => ({ eventId: eventId(a), person: { userId: w.otherUserId } }),
  remove_check_in_staff: (a, w) => ({ eventId: eventId(a), userId: w.otherUserId }),
  bind_bracelet: (a) => ({ ...reservation(a), uid: "04A23B4C5D6E7F" }),
  unbind_bracelet: (a) => ({ eventId: eventId(a), braceletId: id(a, "bind_bracelet") }),
  mark_bracelet_lost: (a) => ({ eventId: eventId(a), braceletId: id(a, "bind_bracelet") }),
  decline_reservation: reservation,
  cancel_reservation: reservation,
  delete_hub: (a) => ({ hubId: id(a, "create_hub") }),
  delete_event: (a) => ({ eventId: eventId(a) }),
};

/**
 * The tools whose valid call answers an error in this test's world, and why: no chain, Sui key or
 * vault is configured, the checkout is not paid, the sponsor has no balance, no sponsorship
 * reservation exists. Every other tool answers, and its answer passes the client's output validation.
 */
const REFUSED_HERE: Record<string, string> = {
  register_nft_collection: "chain_not_supported",
  publish_sui_collection: "sui_not_configured",
  get_sui_collection: "not_found",
  confirm_checkout_payment: "chain_not_supported",
  complete_sponsored_transaction: "reservation_not_found",
  cancel_sponsored_transaction: "reservation_not_found",
  record_sponsorship_deposit: "chain_not_supported",
  record_sponsorship_usage: "insufficient_balance",
  request_sponsored_deposit: "sponsorship_vault_not_configured",
};

/**
 * Invalid arguments for a tool: its first argument given an object (no argument of these tools takes
 * one there), or an argument it does not have when it takes none.
 */
function invalidArgs(valid: Args, inputSchema: ListedTool["inputSchema"]): Args {
  const first = Object.keys(inputSchema.properties ?? {})[0];
  return first === undefined ? { unexpected: true } : { ...valid, [first]: { not: "valid" } };
}

/** One call's outcome as the model sees it: the answer, or the error code in the text. */
type Outcome = { tool: string; ok: true; answer: Record<string, unknown> } | { tool: string; ok: false; code: string; message: string };

/** What a client handed over, checked the same way for every client. */
function outcomeOf(tool: string, raw: unknown): Outcome {
  const result = raw as Result;
  if (!result.isError) {
    expect(result.structuredContent, `${tool}: an answer carries structuredContent`).toBeDefined();
    return { tool, ok: true, answer: result.structuredContent! };
  }
  expect(result.structuredContent, `${tool}: an error carries no structuredContent`).toBeUndefined();
  const [first] = result.content ?? [];
  const error = first?.type === "text" ? /^([a-z][a-z0-9_]*): (.+)$/s.exec(first.text ?? "") : null;
  expect(error, `${tool}: the error's text is "code: message": ${JSON.stringify(result.content)}`).not.toBeNull();
  return { tool, ok: false, code: error![1]!, message: error![2]! };
}

/** Calls `tools` (in CALLS order) with valid and then invalid arguments; returns both outcomes of each. */
async function sweep(
  callTool: (tool: string, args: Args) => Promise<unknown>,
  listed: ListedTool[],
  tools: readonly string[],
  world: World,
): Promise<Array<{ valid: Outcome; invalid: Outcome }>> {
  const answers: Answers = new Map();
  const outcomes: Array<{ valid: Outcome; invalid: Outcome }> = [];
  for (const tool of Object.keys(CALLS).filter((name) => tools.includes(name))) {
    const definition = listed.find((t) => t.name === tool);
    expect(definition, `${tool} is listed`).toBeDefined();
    const args = CALLS[tool]!(answers, world);
    const valid = outcomeOf(tool, await callTool(tool, args).catch((error) => {
      throw new Error(`${tool} with valid arguments ${JSON.stringify(args)}: the client threw ${error}`);
    }));
    expect(valid.ok ? "answered" : valid.code, `${tool} with valid arguments: ${JSON.stringify(valid)}`).toBe(REFUSED_HERE[tool] ?? "answered");
    if (valid.ok) answers.set(tool, valid.answer);
    const invalid = outcomeOf(tool, await callTool(tool, invalidArgs(args, definition!.inputSchema)).catch((error) => {
      throw new Error(`${tool} with invalid arguments: the client threw ${error}`);
    }));
    expect(invalid.ok ? "answered" : invalid.code, `${tool} with invalid arguments: ${JSON.stringify(invalid)}`).toBe("validation_failed");
    outcomes.push({ valid, invalid });
  }
  return outcomes;
}

/** The unknown id of get_event: the model reads not_found (the SDK 1.x Client used to throw -32602 here). */
async function expectNotFound(callTool: (tool: string, args: Args) => Promise<unknown>): Promise<void> {
  const outcome = outcomeOf("get_event", await callTool("get_event", { eventId: UNKNOWN_ID }));
  expect(outcome).toMatchObject({ ok: false, code: "not_found" });
}

interface Endpoint {
  name: "backend" | "public";
  path: string;
  /** The HTTP headers of the endpoint's credential. */
  headers: Record<string, string>;
}

let ctx: OAuthGateway;
let world: World;
let endpoints: Endpoint[];

beforeAll(async () => {
  // Each sweep makes more calls in a minute than one key's or grant's default limit (120) allows;
  // with ticket keys, the ticket tools answer tickets.
  ctx = await startOAuthGateway({ MCP_RATE_LIMIT_PER_MINUTE: "2000", TICKET_SIGNING_KEYS: await generateTicketSigningKey() });
  const person = await ctx.userWithKey(["checkout:create", "checkout:retry", "collections:publish", "sponsorship:write"], { email: EMAIL });
  const other = await ctx.userWithKey([], { email: "checker@example.com" });
  // The person's wallet, which is also their sponsor wallet on the chain.
  await linkAddress(ctx.adminDb, { userId: person.id, address: WALLET, chainId: String(CHAIN_ID), connector: "injected" });
  const [collection] = await ctx.owner<{ id: string }[]>`
    insert into checkout.collections (owner_id, chain_id, address, pricing, mint_price, token_decimals, verified_owner_address)
    values (${person.id}, ${CHAIN_ID}, ${TARGET}, 'static', 0, 18, ${WALLET}) returning id`;
  // Through the gateway (its secrets seal what a checkout stores), not the in-process app.
  const made = async (path: string, key: string, json: unknown) => {
    const response = await fetch(ctx.root + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(json) });
    expect(response.status, await response.clone().text()).toBe(201);
    return response.json();
  };
  const checkout = await made("/api/v3/checkout/sessions", person.key, checkoutRequest(collection!.id)) as World["checkout"];
  const { checkoutId: paidCheckoutId } = await made("/api/v3/checkout/sessions", person.key, checkoutRequest(collection!.id)) as World["checkout"];
  await ctx.owner`update checkout.sessions set status = 'COMPLETED', tx_hash = ${TX_HASH}, completed_at = now() where id = ${paidCheckoutId}`;
  const [delivery] = await ctx.owner<{ id: string }[]>`
    insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload, status, attempts, last_status_code)
    values (${`checkout-completed-${paidCheckoutId}`}, ${paidCheckoutId}, ${person.id}, ${`${EXAMPLE_SITE}/hook`}, '{}', 'failed', 1, 500)
    returning id`;
  await ctx.owner`insert into checkout.webhook_attempts (delivery_id, status_code, error) values (${delivery!.id}, 500, 'HTTP 500')`;
  world = {
    otherUserId: other.id,
    othersHubId: (await made("/api/v3/hubs", other.key, { name: "Another's hub", hubType: "group", status: "PUBLISHED" }) as { id: string }).id,
    collectionId: collection!.id,
    checkout: { checkoutId: checkout.checkoutId, clientSecret: checkout.clientSecret },
    paidCheckoutId,
  };
  // The same person on the public endpoint, through dynamic registration, e-mail sign-in and consent to every scope.
  const tokens = await tokensOverHttp(ctx, EMAIL, [...MCP_SCOPES]);
  expect(tokens.scope.split(" ").sort()).toEqual([...MCP_SCOPES].sort());
  endpoints = [
    { name: "backend", path: "/mcp/backend", headers: { "x-api-key": person.key } },
    { name: "public", path: "/mcp", headers: { authorization: `Bearer ${tokens.access_token}` } },
  ];
});
afterAll(async () => {
  await ctx?.close();
});

const SDK_CLIENTS = {
  "the SDK 1.x Client": async (url: URL, headers: Record<string, string>): Promise<SdkClient> => {
    const client = new ClientV1({ name: "compat-sdk-1", version: "1.0.0" });
    await client.connect(new HttpTransportV1(url, { requestInit: { headers } }));
    return client as unknown as SdkClient;
  },
  "the SDK v2 Client": async (url: URL, headers: Record<string, string>): Promise<SdkClient> => {
    const client = new ClientV2({ name: "compat-sdk-2", version: "1.0.0" });
    await client.connect(new HttpTransportV2(url, { requestInit: { headers } }));
    return client as unknown as SdkClient;
  },
};

describe.each(["backend", "public"] as const)("MCP clients against the %s endpoint", (name) => {
  const endpoint = () => endpoints.find((e) => e.name === name)!;

  for (const [label, connect] of Object.entries(SDK_CLIENTS)) {
    it(`${label}: every tool with valid and invalid arguments`, { timeout: 60_000 }, async () => {
      const client = await connect(new URL(ctx.root + endpoint().path), endpoint().headers);
      try {
        const { tools } = await client.listTools(); // the 1.x Client compiles each output schema's validator here
        const names = tools.map((t) => t.name);
        expect(names.filter((tool) => !(tool in CALLS)), "tools the sweep does not know").toEqual([]);
        const callTool = (tool: string, args: Args) => client.callTool({ name: tool, arguments: args });
        expect(await sweep(callTool, tools, names, world)).toHaveLength(names.length);
        await expectNotFound(callTool);
        // A tool that does not exist is a JSON-RPC error, not a result.
        await expect(callTool("no_such_tool", {})).rejects.toMatchObject({ code: -32602 });
      } finally {
        await client.close();
      }
    });
  }

  it("mcp-remote, driven by the SDK 1.x Client over stdio: every tool with valid and invalid arguments", { timeout: 90_000 }, async () => {
    const configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const driver = startBrowserDriver();
    const url = ctx.root + endpoint().path;
    const callbackPort = await freePort();
    // The backend's API key as a header; the public endpoint through mcp-remote's own OAuth flow.
    const headerArgs = name === "backend" ? ["--header", `x-api-key:${endpoint().headers["x-api-key"]}`] : [];
    const transport = new StdioTransportV1({
      command: process.execPath,
      args: [MCP_REMOTE, url, String(callbackPort), "--host", "127.0.0.1", "--transport", "http-only", ...headerArgs],
      env: { ...driver.env, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new ClientV1({ name: "compat-mcp-remote", version: "1.0.0" });
    try {
      const connecting = client.connect(transport);
      if (name === "public") {
        const authorize = await driver.nextUrl(1, 60_000).catch((error) => {
          throw new Error(`${error.message}\nmcp-remote said:\n${stderr}`);
        });
        const { answer } = await completeAuthorization(ctx, authorize, EMAIL, [...MCP_SCOPES]);
        expect(answer.status, await answer.clone().text()).toBe(200);
      }
      await connecting;
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      const callTool = (tool: string, args: Args) => client.callTool({ name: tool, arguments: args });
      expect(await sweep(callTool, tools, names, world)).toHaveLength(names.length);
      await expectNotFound(callTool);
    } catch (error) {
      throw new Error(`${error}\nmcp-remote said:\n${stderr}`);
    } finally {
      await client.close().catch(() => {});
      driver.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  // A process per call: about 0.4 s each, so the two sweeps take a minute or so.
  it("the MCP Inspector CLI (Node 22): every tool with valid and invalid arguments", { timeout: 240_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), "mcp-inspector-"));
    const headers = Object.entries(endpoint().headers).flatMap(([header, value]) => ["--header", `${header}: ${value}`]);
    const url = ctx.root + endpoint().path;
    const inspect = (args: string[]) => runInspector([url, "--transport", "http", ...headers, "--format", "json", ...args], home);
    try {
      const listing = await inspect(["--method", "tools/list"]);
      expect(listing.code, listing.stderr).toBe(0);
      const { tools } = JSON.parse(listing.stdout).result as { tools: ListedTool[] };
      const callTool = async (tool: string, args: Args) => {
        const { code, stdout, stderr } = await inspect(["--method", "tools/call", "--tool-name", tool, "--tool-args-json", JSON.stringify(args)]);
        // The CLI validates a result against the tool's output schema (a mismatch is an error and no
        // result); it prints the result, and exits 5 when the result is an isError one.
        expect(stdout, `${tool}: the Inspector printed no result (exit ${code})\n${stderr}`).toMatch(/^\{"result":/);
        const { result } = JSON.parse(stdout) as { result: Result };
        expect(code, `${tool}: the Inspector exited ${code}\n${stderr}`).toBe(result.isError ? 5 : 0);
        return result;
      };
      const names = tools.map((t) => t.name);
      expect(await sweep(callTool, tools, names, world)).toHaveLength(names.length);
      await expectNotFound(callTool);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** One Inspector CLI run under Node 22, with a home of its own (its catalog and secret store). */
function runInspector(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [INSPECTOR, "--cli", ...args], {
      cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
