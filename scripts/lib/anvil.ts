// A local EVM chain: anvil from @foundry-rs/anvil (DESIGN, Chains), for the chain tests and the
// local demo. Runs under Node (vitest) and Deno (npm start): node: APIs only.
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type HDAccount, mnemonicToAccount } from "viem/accounts";
// A port free on loopback right now; anvil binds it a moment later (a lost race is retried below).
import { freePort } from "./gateway-process.ts";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const ANVIL_BIN = join(REPO_ROOT, "node_modules/.bin/anvil");

export const ANVIL_CHAIN_ID = 31337;
/** anvil's default mnemonic: its ten funded dev accounts (10,000 ETH each) derive from it. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
const ACCOUNT_COUNT = 10;
const START_TIMEOUT_MS = 15_000;

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  /** The dev accounts, funded at genesis; index 0 is the usual deployer. */
  accounts: HDAccount[];
  stop(): Promise<void>;
}

async function answersChainId(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    const body = await response.json() as { result?: string };
    return Number(body.result) === ANVIL_CHAIN_ID;
  } catch {
    return false;
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });
}

async function launch(port: number): Promise<{ child: ChildProcess; rpcUrl: string }> {
  const rpcUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    ANVIL_BIN,
    ["--hardfork", "prague", "--chain-id", String(ANVIL_CHAIN_ID), "--host", "127.0.0.1", "--port", String(port), "--silent"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  let exited = false;
  child.once("exit", () => (exited = true));
  const started = Date.now();
  while (Date.now() - started < START_TIMEOUT_MS) {
    if (exited) throw new Error(`anvil exited at start on port ${port}: ${stderr.trim()}`);
    if (await answersChainId(rpcUrl)) return { child, rpcUrl };
    await new Promise((wait) => setTimeout(wait, 50));
  }
  await stopProcess(child);
  throw new Error(`anvil did not answer on ${rpcUrl} within ${START_TIMEOUT_MS} ms`);
}

/**
 * Starts anvil (Prague, chain id 31337, auto-mining) on `port` or on a free loopback port, and
 * resolves once it answers. The caller stops it; it is also killed if this process exits first.
 */
export async function startAnvil(options: { port?: number } = {}): Promise<Anvil> {
  let started: { child: ChildProcess; rpcUrl: string } | undefined;
  // A free port can be taken by someone else before anvil binds it: try another one.
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await launch(options.port ?? await freePort());
    } catch (error) {
      if (options.port !== undefined || attempt >= 3) throw error;
    }
  }
  const { child, rpcUrl } = started;
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  return {
    rpcUrl,
    chainId: ANVIL_CHAIN_ID,
    accounts: Array.from({ length: ACCOUNT_COUNT }, (_, addressIndex) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex })),
    async stop() {
      process.off("exit", killOnExit);
      await stopProcess(child);
    },
  };
}
