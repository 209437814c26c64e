// ERC-4337 and EIP-7702 contracts on a local chain, for the sponsored-gas tests: eth-infinitism's
// EntryPoint 0.8, SimpleAccountFactory / SimpleAccount and Simple7702Account, deployed with viem from
// the compiled artifacts @account-abstraction/contracts ships (no compilation), and user operations
// built and signed by hand. Runs under Node (vitest) and Deno: node: APIs only.
//
// The EntryPoint is deployed twice over: at its canonical address through the deterministic
// deployment proxy anvil preinstalls (the published salt and bytecode give
// 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108, which Simple7702Account hard-codes), and anywhere
// else with a plain deployment (an EntryPoint the verifier does not know).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Abi,
  type Address,
  type Client,
  concat,
  encodeFunctionData,
  getAddress,
  type Hex,
  type LocalAccount,
  parseEventLogs,
  type SignedAuthorization,
} from "viem";
import { entryPoint08Abi, getUserOperationHash, toPackedUserOperation, type UserOperation } from "viem/account-abstraction";
import { deployContract, getBlock, getCode, readContract, sendTransaction, waitForTransactionReceipt } from "viem/actions";
import type { DeployerClient } from "./contracts.ts";

const ARTIFACTS_DIR = join(resolve(fileURLToPath(new URL("../..", import.meta.url))), "node_modules/@account-abstraction/contracts/artifacts");

export type AccountAbstractionContract = "EntryPoint" | "SimpleAccountFactory" | "SimpleAccount" | "Simple7702Account";

/** The ABI and creation bytecode of one of the package's contracts. */
export function aaArtifact(name: AccountAbstractionContract): { abi: Abi; bytecode: Hex } {
  const { abi, bytecode } = JSON.parse(readFileSync(join(ARTIFACTS_DIR, `${name}.json`), "utf8"));
  return { abi, bytecode };
}

/** Arachnid's deterministic deployment proxy (CREATE2 of the 32-byte salt ‖ creation code). */
const CREATE2_PROXY: Address = "0x4e59b44847b379578588920ca78fbf26c0b4956c";
/** The salt EntryPoint 0.8 was deployed with at its canonical address. */
const ENTRY_POINT_08_SALT: Hex = "0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9";
export const CANONICAL_ENTRY_POINT_08: Address = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108";

async function mined(client: DeployerClient, hash: Hex) {
  const receipt = await waitForTransactionReceipt(client, { hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

async function deploy(client: DeployerClient, name: AccountAbstractionContract, args: unknown[] = []): Promise<Address> {
  const { abi, bytecode } = aaArtifact(name);
  const receipt = await mined(client, await deployContract(client, { abi, bytecode, args }));
  if (!receipt.contractAddress) throw new Error(`${name} was not deployed`);
  return getAddress(receipt.contractAddress);
}

/** EntryPoint 0.8 at its canonical address (once per chain), through the CREATE2 proxy. */
export async function deployCanonicalEntryPoint(client: DeployerClient): Promise<Address> {
  const present = async () => ((await getCode(client, { address: CANONICAL_ENTRY_POINT_08 })) ?? "0x") !== "0x";
  if (await present()) return CANONICAL_ENTRY_POINT_08;
  if (((await getCode(client, { address: CREATE2_PROXY })) ?? "0x") === "0x") throw new Error("no CREATE2 proxy on this chain");
  const data = concat([ENTRY_POINT_08_SALT, aaArtifact("EntryPoint").bytecode]);
  await mined(client, await sendTransaction(client, { to: CREATE2_PROXY, data, gas: 8_000_000n }));
  if (!await present()) throw new Error(`EntryPoint did not land at ${CANONICAL_ENTRY_POINT_08}`);
  return CANONICAL_ENTRY_POINT_08;
}

/** An EntryPoint 0.8 at an ordinary (non-canonical) address. */
export function deployEntryPoint(client: DeployerClient): Promise<Address> {
  return deploy(client, "EntryPoint");
}

/** A SimpleAccountFactory for `entryPoint`; accounts are created through user operations' initCode. */
export function deploySimpleAccountFactory(client: DeployerClient, entryPoint: Address): Promise<Address> {
  return deploy(client, "SimpleAccountFactory", [entryPoint]);
}

/** The Simple7702Account delegate (its EntryPoint is the canonical 0.8 one). */
export function deploySimple7702Account(client: DeployerClient): Promise<Address> {
  return deploy(client, "Simple7702Account");
}

/** The counterfactual address of the SimpleAccount `owner` gets from `factory` with `salt`. */
export async function simpleAccountAddress(client: DeployerClient, factory: Address, owner: Address, salt = 0n): Promise<Address> {
  const { abi } = aaArtifact("SimpleAccountFactory");
  return getAddress(await readContract(client, { address: factory, abi, functionName: "getAddress", args: [owner, salt] }) as Address);
}

/** Calldata of an account's `execute(target, value, data)`. */
export function encodeExecute(call: { target: Address; value: bigint; data: Hex }): Hex {
  return encodeFunctionData({ abi: aaArtifact("SimpleAccount").abi, functionName: "execute", args: [call.target, call.value, call.data] });
}

/** Calldata of an account's `executeBatch(Call[])`. */
export function encodeExecuteBatch(calls: { target: Address; value: bigint; data: Hex }[]): Hex {
  return encodeFunctionData({ abi: aaArtifact("SimpleAccount").abi, functionName: "executeBatch", args: [calls] });
}

/** Prefunds `account`'s gas at the EntryPoint (what a paymaster would otherwise cover). */
export async function depositAtEntryPoint(client: DeployerClient, entryPoint: Address, account: Address, value: bigint): Promise<void> {
  const data = encodeFunctionData({ abi: aaArtifact("EntryPoint").abi, functionName: "depositTo", args: [account] });
  await mined(client, await sendTransaction(client, { to: entryPoint, data, value }));
}

export interface UserOperationParams {
  entryPoint: Address;
  chainId: number;
  sender: Address;
  /** Signs the operation's hash as is (SimpleAccount's owner, or the EIP-7702 EOA itself). */
  signer: LocalAccount;
  callData: Hex;
  /** Key 0's next nonce, from the EntryPoint unless given. */
  nonce?: bigint;
  /** A SimpleAccount's first operation: the factory and its createAccount(owner, salt). */
  factory?: { address: Address; owner: Address; salt?: bigint };
}

/** A signed EntryPoint 0.8 user operation, with generous gas limits and fees over the base fee. */
export async function signedUserOperation(client: DeployerClient, params: UserOperationParams): Promise<{ userOperation: UserOperation<"0.8">; hash: Hex }> {
  const entryPointAbi = aaArtifact("EntryPoint").abi;
  const nonce = params.nonce ??
    await readContract(client, { address: params.entryPoint, abi: entryPointAbi, functionName: "getNonce", args: [params.sender, 0n] }) as bigint;
  const baseFee = (await getBlock(client)).baseFeePerGas ?? 1_000_000_000n;
  const factory = params.factory && {
    factory: params.factory.address,
    factoryData: encodeFunctionData({
      abi: aaArtifact("SimpleAccountFactory").abi,
      functionName: "createAccount",
      args: [params.factory.owner, params.factory.salt ?? 0n],
    }),
  };
  const unsigned: UserOperation<"0.8"> = {
    sender: params.sender,
    nonce,
    ...factory,
    callData: params.callData,
    callGasLimit: 300_000n,
    verificationGasLimit: 600_000n,
    preVerificationGas: 60_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: baseFee * 2n + 1_000_000_000n,
    signature: "0x",
  };
  const hash = getUserOperationHash({
    userOperation: unsigned,
    entryPointAddress: params.entryPoint,
    entryPointVersion: "0.8",
    chainId: params.chainId,
  });
  return { userOperation: { ...unsigned, signature: await params.signer.sign!({ hash }) }, hash };
}

/** The bundler's handleOps transaction for `userOperations` (beneficiary: the bundler), once mined. */
export async function handleOps(
  bundler: DeployerClient,
  entryPoint: Address,
  userOperations: UserOperation<"0.8">[],
  authorizationList?: SignedAuthorization[],
): Promise<Hex> {
  const data = encodeFunctionData({
    abi: aaArtifact("EntryPoint").abi,
    functionName: "handleOps",
    args: [userOperations.map((op) => toPackedUserOperation(op)), bundler.account.address],
  });
  const hash = await sendTransaction(bundler, { to: entryPoint, data, gas: 3_000_000n, ...authorizationList ? { authorizationList } : {} });
  await mined(bundler, hash);
  return hash;
}

/** The UserOperationEvents in `hash`'s receipt (read with viem's own EntryPoint 0.8 ABI). */
export async function userOperationEvents(client: Client, hash: Hex) {
  const { logs } = await waitForTransactionReceipt(client, { hash });
  return parseEventLogs({ abi: entryPoint08Abi, eventName: "UserOperationEvent", logs });
}
