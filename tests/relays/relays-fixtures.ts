// A relay test file's world: the sponsorship world (anvil, app, funded sponsors) with a relayer key
// configured, the relayer funded on anvil, and helpers to relay, run the recovery pass and read the
// relays table. Every console line and stdout/stderr write is captured so the tests can assert the
// key never appears in them.
import { encodeFunctionData, type Hex, parseAbi, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { relayOnce, type RelayPassOptions } from "../../supabase/functions/_shared/relays/relayer.ts";
import { type LoopbackServer, serveOnLoopback } from "../../scripts/lib/listen.ts";
import { startSponsorshipWorld } from "../sponsorship/sponsorship-fixtures.ts";

const tokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);

/** Everything written to the console or the process streams while the world runs. */
export const captured: string[] = [];
let capturing = false;
function capture() {
  if (capturing) return;
  capturing = true;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      captured.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a, (_, v) => typeof v === "bigint" ? v.toString() : v))).join(" "));
      original(...args);
    };
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}

export type RelayWorld = Awaited<ReturnType<typeof startRelayWorld>>;

export async function startRelayWorld() {
  capture();
  const relayerKey = generatePrivateKey();
  const relayer = privateKeyToAccount(relayerKey);
  const w = await startSponsorshipWorld({ RELAYER_PRIVATE_KEY: relayerKey, RELAYER_REPLACE_AFTER_SECONDS: "3600" });
  await w.chain.testClient.setBalance({ address: relayer.address, value: parseEther("100") });
  const services = { config: w.t.config, db: w.t.db };

  /** A sponsor paying venue relays to the test token (the stand-in venue contract). */
  async function venueSponsor(settings: Record<string, unknown> = {}, amount = parseEther("1")) {
    return w.fundedSponsor(await w.newAccount(), { enabledOperations: ["venue_gasless"], allowedTargets: [w.target], ...settings }, amount);
  }

  /** An actor (linked address) and the API key it calls with. */
  async function actor() {
    const account = await w.newAccount();
    const user = await w.userWithWallet(account);
    return { account, user, key: user.key };
  }

  const checkInCall = (to: Hex, amount = 1n) => encodeFunctionData({ abi: tokenAbi, functionName: "mint", args: [to, amount] });

  const relayVenue = (json: Record<string, unknown>, key: string) => w.t.call("/api/v3/crypto/evm/venue-gasless", { method: "POST", json, key });

  /** The recovery pass, as the gateway's loop runs it. */
  const pass = (options: RelayPassOptions = {}) => relayOnce(services, options);

  /** Rows of the relays tables, read as the database owner. */
  const relays = () => w.t.owner<{ id: string; nonce: string; status: string; mined_tx_hash: string | null; cost: string | null; usage_id: string | null; reservation_id: string }[]>`
    select id, nonce::text, status, mined_tx_hash, cost::text, usage_id::text, reservation_id from relays.relays order by nonce`;
  const nextNonce = async () => {
    const [row] = await w.t.owner<{ next_nonce: string }[]>`select next_nonce::text from relays.relayer_accounts where address = ${relayer.address.toLowerCase()}`;
    return row ? BigInt(row.next_nonce) : null;
  };

  /** Mined nonces of the relayer on anvil. */
  const minedNonce = () => w.chain.publicClient.getTransactionCount({ address: relayer.address, blockTag: "latest" });

  /** Waits until every relay is mined on anvil, then charges them (a few passes). */
  async function settle(expectedMined: number) {
    for (let i = 0; i < 200 && (await minedNonce()) < expectedMined; i++) await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 5; i++) {
      await pass();
      if ((await relays()).every((r) => r.status === "mined" || r.status === "failed")) return;
    }
  }

  return { ...w, relayerKey, relayer, services, venueSponsor, actor, checkInCall, relayVenue, pass, relays, nextNonce, minedNonce, settle };
}

/**
 * An RPC endpoint in front of `rpcUrl` that loses every raw transaction, as a process killed between
 * committing a signed transaction and broadcasting it would: everything else reaches the node.
 */
export function rpcLosingBroadcasts(rpcUrl: string): Promise<LoopbackServer> {
  return serveOnLoopback("rpc-losing-broadcasts", async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const call = JSON.parse(body) as { id: unknown; method: string };
    const answer = call.method === "eth_sendRawTransaction"
      ? JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -32000, message: "process killed before broadcast" } })
      : await (await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
    response.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
}

/** Asserts that none of `texts` contains the key (with or without 0x, any case). */
export function leaksOf(key: Hex, texts: string[]): string[] {
  const bare = key.slice(2).toLowerCase();
  return texts.filter((text) => text.toLowerCase().includes(bare));
}
