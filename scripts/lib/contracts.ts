// The project's reference contracts (supabase/functions/_shared/chain/contracts): compiled with
// solc-js in-process and deployed with viem. Used by the chain tests and the local demo chain.
// Runs under Node (vitest) and Deno (npm start): node: APIs only.
//
// Compiling OpenZeppelin's ERC-721 with solc-js takes seconds, so artifacts are cached in
// .local/contracts/ under a hash of everything that decides the output (our sources, the
// OpenZeppelin and compiler versions, the settings): repeated test runs and test files that run in
// parallel compile at most once per change.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Abi, Account, Address, Chain, Client, Hex, Transport } from "viem";
import { getAddress } from "viem";
import { deployContract, waitForTransactionReceipt } from "viem/actions";
import { checkoutCollectionAbi, type MintPricing, PRICING_ENUM } from "../../supabase/functions/_shared/collections/contract.ts";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const SOURCES_DIR = join(REPO_ROOT, "supabase/functions/_shared/chain/contracts");
const CACHE_DIR = join(REPO_ROOT, ".local/contracts");
const NODE_MODULES = join(REPO_ROOT, "node_modules");

// Prague is the hardfork anvil runs (DESIGN, Chains); solc's newer default could emit opcodes it lacks.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "prague",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
} as const;

export interface ContractArtifact {
  abi: Abi;
  bytecode: Hex;
}

/** Each a `<name>.sol` in SOURCES_DIR defining the contract `<name>`. */
const CONTRACT_NAMES = ["CheckoutCollection", "TestToken", "AccessPass721", "AccessPass1155"] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];
export type Artifacts = Record<ContractName, ContractArtifact>;

type SolcOutput = {
  errors?: Array<{ severity: "error" | "warning" | "info"; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

function readSources(): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(SOURCES_DIR).filter((name) => name.endsWith(".sol")).sort()) {
    sources[file] = { content: readFileSync(join(SOURCES_DIR, file), "utf8") };
  }
  return sources;
}

function packageVersion(name: string): string {
  return JSON.parse(readFileSync(join(NODE_MODULES, name, "package.json"), "utf8")).version;
}

/** Only OpenZeppelin is importable, and only from inside its own package folder. */
function resolveImport(path: string): { contents: string } | { error: string } {
  const root = join(NODE_MODULES, "@openzeppelin/contracts");
  const file = resolve(NODE_MODULES, path);
  if (!path.startsWith("@openzeppelin/contracts/") || !file.startsWith(root + "/")) {
    return { error: `import not allowed: ${path}` };
  }
  try {
    return { contents: readFileSync(file, "utf8") };
  } catch {
    return { error: `import not found: ${path}` };
  }
}

async function compile(sources: Record<string, { content: string }>): Promise<Artifacts> {
  // Loaded only on a cache miss: the compiler itself takes a moment to initialise.
  const solc = (await import("solc")).default;
  const input = { language: "Solidity", sources, settings: SETTINGS };
  const output: SolcOutput = JSON.parse(solc.compile(JSON.stringify(input), { import: resolveImport }));
  const errors = (output.errors ?? []).filter((entry) => entry.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((entry) => entry.formattedMessage).join("\n")}`);
  const artifact = (name: ContractName): ContractArtifact => {
    const contract = output.contracts[`${name}.sol`]?.[name];
    if (!contract) throw new Error(`solc produced no ${name}`);
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  return Object.fromEntries(CONTRACT_NAMES.map((name) => [name, artifact(name)])) as Artifacts;
}

let memo: Promise<Artifacts> | undefined;

/** Compiled reference contracts, from the cache when the sources, versions and settings are unchanged. */
export function loadArtifacts(): Promise<Artifacts> {
  memo ??= (async () => {
    const sources = readSources();
    const key = createHash("sha256")
      .update(JSON.stringify({
        solc: packageVersion("solc"),
        openzeppelin: packageVersion("@openzeppelin/contracts"),
        settings: SETTINGS,
        sources,
      }))
      .digest("hex")
      .slice(0, 32);
    const cached = join(CACHE_DIR, `${key}.json`);
    try {
      return JSON.parse(readFileSync(cached, "utf8")) as Artifacts;
    } catch {
      // Not cached yet (or unreadable): compile below.
    }
    const artifacts = await compile(sources);
    mkdirSync(CACHE_DIR, { recursive: true });
    // Write then rename, so a test file compiling at the same time never reads half a file.
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(artifacts));
    renameSync(partial, cached);
    return artifacts;
  })();
  memo.catch(() => (memo = undefined));
  return memo;
}

/** A client that signs and sends: a viem wallet client with its account and chain set. */
export type DeployerClient = Client<Transport, Chain, Account>;

export interface CollectionParams {
  name: string;
  symbol: string;
  owner: Address;
  /** Omitted or address(0): the chain's native currency. */
  paymentToken?: Address;
  pricing: MintPricing;
  /** The price of `mint` (smallest units), for static pricing. */
  staticPrice?: bigint;
  /** The service key that signs vouchers; required for dynamic pricing. */
  priceSigner?: Address;
}

const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";

async function deployed(client: DeployerClient, hash: Hex): Promise<Address> {
  const receipt = await waitForTransactionReceipt(client, { hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  return getAddress(receipt.contractAddress);
}

/** Deploys the reference collection from `client`'s account and returns its address once mined. */
export async function deployCollection(client: DeployerClient, params: CollectionParams): Promise<Address> {
  const { CheckoutCollection } = await loadArtifacts();
  const hash = await deployContract(client, {
    abi: checkoutCollectionAbi,
    bytecode: CheckoutCollection.bytecode,
    args: [
      params.name,
      params.symbol,
      params.owner,
      params.paymentToken ?? ZERO_ADDRESS,
      PRICING_ENUM[params.pricing],
      params.staticPrice ?? 0n,
      params.priceSigner ?? ZERO_ADDRESS,
    ],
  });
  return deployed(client, hash);
}

/** Deploys a test ERC-20 (anyone may `mint(to, amount)` on it) and returns its address once mined. */
export async function deployTestToken(
  client: DeployerClient,
  params: { name: string; symbol: string; decimals: number },
): Promise<Address> {
  const { TestToken } = await loadArtifacts();
  const hash = await deployContract(client, {
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: [params.name, params.symbol, params.decimals],
  });
  return deployed(client, hash);
}

/** Deploys the reference ERC-721 access pass (enumerable; `owner` mints) and returns its address once mined. */
export async function deployAccessPass721(
  client: DeployerClient,
  params: { name: string; symbol: string; owner: Address },
): Promise<Address> {
  const { AccessPass721 } = await loadArtifacts();
  const hash = await deployContract(client, {
    abi: AccessPass721.abi,
    bytecode: AccessPass721.bytecode,
    args: [params.name, params.symbol, params.owner],
  });
  return deployed(client, hash);
}

/** Deploys the reference ERC-1155 access pass (`owner` mints) and returns its address once mined. */
export async function deployAccessPass1155(client: DeployerClient, params: { uri: string; owner: Address }): Promise<Address> {
  const { AccessPass1155 } = await loadArtifacts();
  const hash = await deployContract(client, {
    abi: AccessPass1155.abi,
    bytecode: AccessPass1155.bytecode,
    args: [params.uri, params.owner],
  });
  return deployed(client, hash);
}
