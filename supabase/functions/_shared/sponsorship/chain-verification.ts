// On-chain verification for the sponsored-gas ledger: a sponsored
// transaction is reimbursed from the sponsor's balance, and a deposit credited to it, only once the
// chain shows it. Pure chain reads through a viem public client: no database, nothing Deno-specific
// (runs in the gateway under Deno and in vitest). Transport errors throw; every verdict about the
// chain is a value.
//
// ## Modes
//
// - eoa: the actor's own transaction. Success; tx.from == actor, tx.to == target, tx.input ==
//   callData, tx.value == nativeValueWei. cost = gasUsed × effectiveGasPrice (+ the L1 fee).
// - eip7702: the actor is an EOA delegated with EIP-7702: its code at the receipt's block is
//   0xef0100‖delegate. Two ways in, any sender (the provider's relayer):
//     direct: tx.to == the EOA, calling the delegate's `execute(target, value, data)` (or
//       `executeBatch` with exactly one call) with the claim's (target, value, data); the
//       transaction may be the type-4 one carrying the authorization or a later one. cost =
//       gasUsed × effectiveGasPrice (+ the L1 fee). Note: Simple7702Account (eth-infinitism 0.8)
//       lets only the EOA itself or the EntryPoint call execute, so with that delegate a relayer
//       can only come in through the EntryPoint:
//     through a known EntryPoint: tx.to is the EntryPoint's handleOps and the user operation's
//       sender is the EOA; checked as erc4337 below (the EOA as smart account, no owner() read).
//   The usage actor is the EOA.
// - erc4337: entryPointAddress is a known EntryPoint (KNOWN_ENTRY_POINTS + options.extraEntryPoints)
//   and tx.to == it (handleOps; handleAggregatedOps is not supported); exactly one
//   UserOperationEvent of that EntryPoint in the receipt with sender == smartAccountAddress (and
//   userOpHash == the claim's when given), successful; the user operation in the handleOps input
//   (found by sender and nonce) calls the account's `execute(target, value, data)` (or
//   `executeBatch` with one call) with the claim's; the account's `owner()` at the receipt's block
//   is the actor. An account without a readable owner() is refused (wrong_owner): usage could not
//   be attributed to anyone. cost = the event's actualGasCost (what the EntryPoint charged).
//
// The L1 fee: OP-stack receipts carry `l1Fee` (a hex quantity on the wire, a bigint through viem's
// OP formatters); it is added when present. Other chains' receipts have none.
//
// Deposits (verifyDeposit): a transaction sent by the sponsor straight to the vault with value > 0,
// successful; amount = its value. Value moved by a contract's internal call is not a deposit here.
//
// ## Refusal codes
//
// pending: true (retry later, the answer may change):
//   receipt_not_found         no mined transaction with that hash (not mined yet, or unknown)
//   not_enough_confirmations  mined, but fewer blocks than `confirmations` (the own block counts 1)
// pending: false (permanent for this transaction and claim):
//   invalid_claim             the claim lacks what its mode needs (erc4337: smartAccountAddress,
//                             entryPointAddress)
//   wrong_chain               the client serves another chain than claim.chainId
//   transaction_failed        the transaction reverted
//   wrong_sender              eoa: tx.from is not the actor; deposit: tx.from is not the sponsor
//   wrong_target              eoa: tx.to is not the target; eip7702: tx.to is neither the EOA nor a
//                             known EntryPoint; erc4337: tx.to is not the claimed EntryPoint
//   wrong_call_data           eoa: tx.input differs from callData
//   wrong_value               eoa: tx.value differs from nativeValueWei
//   not_delegated             eip7702: the actor's code at that block is no EIP-7702 delegation
//   wrong_wrapped_call        eip7702/erc4337: the call is no execute / single-call executeBatch,
//                             or its (target, value, data) differ from the claim's
//   unknown_entry_point       erc4337: the claimed EntryPoint is not a known one
//   user_operation_not_found  no UserOperationEvent of the EntryPoint for that sender (and hash),
//                             or the operation is not in the handleOps input
//   user_operations_ambiguous more than one such UserOperationEvent in the transaction
//   user_operation_failed     the user operation's event says success == false
//   wrong_owner               erc4337: the account's owner() at that block is not the actor, or
//                             the account has no readable owner()
//   not_a_deposit             deposit: not sent to the vault, or with no value
import {
  type Address,
  BaseError,
  type Client,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  decodeEventLog,
  decodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  parseAbi,
  type Transaction,
  type TransactionReceipt,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from "viem";
import { getChainId, getCode, getTransaction, getTransactionReceipt, readContract } from "viem/actions";
import { confirmationsOf } from "../chain/confirmations.ts";

export type SponsoredMode = "eoa" | "eip7702" | "erc4337";

export interface SponsoredTransactionClaim {
  mode: SponsoredMode;
  chainId: number;
  txHash: Hex;
  targetAddress: Address;
  callData: Hex;
  nativeValueWei: bigint;
  /** eoa and eip7702: the EOA; erc4337: the EOA that owns the smart account (usage is recorded against it). */
  actorAddress: Address;
  /** erc4337 only, required there. */
  smartAccountAddress?: Address;
  /** erc4337 only, required there. */
  entryPointAddress?: Address;
  /** erc4337: optional; when given it must match the event's. */
  userOpHash?: Hex;
}

export type SponsoredRefusalCode =
  | "receipt_not_found"
  | "not_enough_confirmations"
  | "invalid_claim"
  | "wrong_chain"
  | "transaction_failed"
  | "wrong_sender"
  | "wrong_target"
  | "wrong_call_data"
  | "wrong_value"
  | "not_delegated"
  | "wrong_wrapped_call"
  | "unknown_entry_point"
  | "user_operation_not_found"
  | "user_operations_ambiguous"
  | "user_operation_failed"
  | "wrong_owner";

export type DepositRefusalCode =
  | "receipt_not_found"
  | "not_enough_confirmations"
  | "transaction_failed"
  | "wrong_sender"
  | "not_a_deposit";

export interface ChainRefusal<Code extends string = string> {
  ok: false;
  code: Code;
  message: string;
  /** Not mined yet, or not enough confirmations: ask again later. */
  pending: boolean;
}

export type SponsoredVerification =
  | { ok: true; cost: bigint; usageActor: Address; blockNumber: bigint; userOpHash: Hex | null }
  | ChainRefusal<SponsoredRefusalCode>;

export type DepositVerification =
  | { ok: true; amount: bigint; from: Address; to: Address; blockNumber: bigint }
  | ChainRefusal<DepositRefusalCode>;

export interface SponsoredVerificationOptions {
  /** Blocks including the transaction's own: 1 accepts a just-mined transaction. */
  confirmations: number;
  /** EntryPoints accepted beside KNOWN_ENTRY_POINTS (a local chain's, in tests). */
  extraEntryPoints?: Address[];
}

/** The EntryPoints deployed at their canonical addresses on public chains. */
export const KNOWN_ENTRY_POINTS: Readonly<Record<"v0.6" | "v0.7" | "v0.8", Address>> = {
  "v0.6": "0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789",
  "v0.7": "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
  "v0.8": "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108",
};

/** What the verifier decodes: handleOps of v0.6 (unpacked) and v0.7/v0.8 (packed, same selector),
 * their common UserOperationEvent, and the account calls of SimpleAccount / Simple7702Account. */
const entryPointAbi = parseAbi([
  "struct UserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }",
  "struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }",
  "function handleOps(UserOperation[] ops, address beneficiary)",
  "function handleOps(PackedUserOperation[] ops, address beneficiary)",
  "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
]);
const accountAbi = parseAbi([
  "struct Call { address target; uint256 value; bytes data; }",
  "function execute(address target, uint256 value, bytes data)",
  "function executeBatch(Call[] calls)",
  "function owner() view returns (address)",
]);

/** EIP-7702's delegation designator: 0xef0100 followed by the delegate's 20 bytes. */
const DELEGATION_PREFIX = "0xef0100";

type Refusal = ChainRefusal<SponsoredRefusalCode>;
const refuse = <Code extends string>(code: Code, message: string, pending = false): ChainRefusal<Code> =>
  ({ ok: false, code, message, pending });

const sameHex = (a: Hex, b: Hex) => a.toLowerCase() === b.toLowerCase();

/** The L1 data fee an OP-stack receipt reports (hex on the wire, bigint through OP formatters), else 0. */
function l1Fee(receipt: TransactionReceipt): bigint {
  const fee = (receipt as { l1Fee?: unknown }).l1Fee;
  if (typeof fee === "bigint") return fee;
  if (typeof fee === "string" && /^(0x[0-9a-f]+|\d+)$/i.test(fee)) return BigInt(fee);
  return 0n;
}

/** What a mined transaction cost its sender: gasUsed × effectiveGasPrice, plus any OP-stack L1 fee. */
export const gasCost = (receipt: TransactionReceipt) => receipt.gasUsed * receipt.effectiveGasPrice + l1Fee(receipt);

type Mined = { receipt: TransactionReceipt; transaction: Transaction };

/** The receipt and transaction of `hash` once it has `confirmations`; pending refusals before that. */
async function minedTransaction(client: Client, hash: Hex, confirmations: number): Promise<Mined | ChainRefusal<"receipt_not_found" | "not_enough_confirmations" | "transaction_failed">> {
  let receipt: TransactionReceipt;
  let transaction: Transaction;
  try {
    receipt = await getTransactionReceipt(client, { hash });
    transaction = await getTransaction(client, { hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError) {
      return refuse("receipt_not_found", `no mined transaction ${hash}`, true);
    }
    throw error;
  }
  const have = await confirmationsOf(client, receipt.blockNumber);
  if (have < BigInt(confirmations)) {
    return refuse("not_enough_confirmations", `${have} of ${confirmations} confirmations`, true);
  }
  if (receipt.status !== "success") return refuse("transaction_failed", `transaction ${hash} reverted`);
  return { receipt, transaction };
}

/** The (target, value, data) of an account's execute, or of an executeBatch with exactly one call. */
function wrappedCall(callData: Hex): { target: Address; value: bigint; data: Hex } | null {
  try {
    const call = decodeFunctionData({ abi: accountAbi, data: callData });
    if (call.functionName === "execute") return { target: call.args[0], value: call.args[1], data: call.args[2] };
    if (call.functionName === "executeBatch" && call.args[0].length === 1) return call.args[0][0]!;
  } catch {
    // Another function, or calldata that does not decode: no wrapped call.
  }
  return null;
}

function checkWrappedCall(callData: Hex, claim: SponsoredTransactionClaim): Refusal | null {
  const call = wrappedCall(callData);
  if (!call) return refuse("wrong_wrapped_call", "the call is neither execute nor an executeBatch of one call");
  if (!isAddressEqual(call.target, claim.targetAddress)) {
    return refuse("wrong_wrapped_call", `the wrapped call goes to ${call.target}, not ${claim.targetAddress}`);
  }
  if (call.value !== claim.nativeValueWei) {
    return refuse("wrong_wrapped_call", `the wrapped call carries ${call.value} wei, not ${claim.nativeValueWei}`);
  }
  if (!sameHex(call.data, claim.callData)) return refuse("wrong_wrapped_call", "the wrapped call's data differs from the claim's");
  return null;
}

type UserOperationEvent = { userOpHash: Hex; sender: Address; nonce: bigint; success: boolean; actualGasCost: bigint };

/**
 * The one user operation of `sender` that `entryPoint` ran in this transaction, checked against
 * the claim (event, handleOps input, wrapped call); its hash and cost.
 */
function verifyUserOperation(mined: Mined, entryPoint: Address, sender: Address, claim: SponsoredTransactionClaim): Refusal | { userOpHash: Hex; cost: bigint } {
  const events: UserOperationEvent[] = [];
  for (const log of mined.receipt.logs) {
    if (!isAddressEqual(log.address, entryPoint)) continue;
    try {
      const event = decodeEventLog({ abi: entryPointAbi, data: log.data, topics: log.topics, strict: true });
      if (!isAddressEqual(event.args.sender, sender)) continue;
      if (claim.userOpHash && !sameHex(event.args.userOpHash, claim.userOpHash)) continue;
      events.push(event.args);
    } catch {
      // Another event of the EntryPoint (BeforeExecution, Deposited, ...).
    }
  }
  const which = `of ${sender}${claim.userOpHash ? ` with hash ${claim.userOpHash}` : ""}`;
  if (events.length === 0) return refuse("user_operation_not_found", `no UserOperationEvent ${which} from ${entryPoint}`);
  if (events.length > 1) return refuse("user_operations_ambiguous", `${events.length} UserOperationEvents ${which}`);
  const event = events[0]!;
  if (!event.success) return refuse("user_operation_failed", `user operation ${event.userOpHash} failed`);

  let ops: readonly { sender: Address; nonce: bigint; callData: Hex }[];
  try {
    const call = decodeFunctionData({ abi: entryPointAbi, data: mined.transaction.input });
    ops = call.args[0];
  } catch {
    return refuse("user_operation_not_found", "the transaction's input is not handleOps");
  }
  const op = ops.find((candidate) => isAddressEqual(candidate.sender, sender) && candidate.nonce === event.nonce);
  if (!op) return refuse("user_operation_not_found", `no operation of ${sender} with nonce ${event.nonce} in handleOps`);
  const wrong = checkWrappedCall(op.callData, claim);
  if (wrong) return wrong;
  return { userOpHash: event.userOpHash, cost: event.actualGasCost };
}

function verifyEoa(mined: Mined, claim: SponsoredTransactionClaim): SponsoredVerification {
  const { receipt, transaction } = mined;
  if (!isAddressEqual(transaction.from, claim.actorAddress)) {
    return refuse("wrong_sender", `sent by ${transaction.from}, not ${claim.actorAddress}`);
  }
  if (!transaction.to || !isAddressEqual(transaction.to, claim.targetAddress)) {
    return refuse("wrong_target", `sent to ${transaction.to ?? "no address (a deployment)"}, not ${claim.targetAddress}`);
  }
  if (!sameHex(transaction.input, claim.callData)) return refuse("wrong_call_data", "the transaction's input differs from the claim's");
  if (transaction.value !== claim.nativeValueWei) {
    return refuse("wrong_value", `carries ${transaction.value} wei, not ${claim.nativeValueWei}`);
  }
  return { ok: true, cost: gasCost(receipt), usageActor: getAddress(claim.actorAddress), blockNumber: receipt.blockNumber, userOpHash: null };
}

async function verifyEip7702(client: Client, mined: Mined, claim: SponsoredTransactionClaim, entryPoints: Address[]): Promise<SponsoredVerification> {
  const { receipt, transaction } = mined;
  const eoa = getAddress(claim.actorAddress);
  const code = await getCode(client, { address: eoa, blockNumber: receipt.blockNumber });
  if (!code || code.length !== 2 + 2 * 23 || !code.toLowerCase().startsWith(DELEGATION_PREFIX)) {
    return refuse("not_delegated", `${eoa} carries no EIP-7702 delegation at block ${receipt.blockNumber}`);
  }
  const done = { usageActor: eoa, blockNumber: receipt.blockNumber };
  if (transaction.to && isAddressEqual(transaction.to, eoa)) {
    const wrong = checkWrappedCall(transaction.input, claim);
    if (wrong) return wrong;
    return { ok: true, cost: gasCost(receipt), userOpHash: null, ...done };
  }
  const entryPoint = transaction.to && entryPoints.find((known) => isAddressEqual(known, transaction.to!));
  if (!entryPoint) return refuse("wrong_target", `sent to ${transaction.to ?? "no address"}, neither ${eoa} nor a known EntryPoint`);
  const op = verifyUserOperation(mined, entryPoint, eoa, claim);
  if ("ok" in op) return op;
  return { ok: true, cost: op.cost, userOpHash: op.userOpHash, ...done };
}

async function verifyErc4337(client: Client, mined: Mined, claim: SponsoredTransactionClaim & { smartAccountAddress: Address; entryPointAddress: Address }): Promise<SponsoredVerification> {
  const { receipt, transaction } = mined;
  if (!transaction.to || !isAddressEqual(transaction.to, claim.entryPointAddress)) {
    return refuse("wrong_target", `sent to ${transaction.to ?? "no address"}, not the EntryPoint ${claim.entryPointAddress}`);
  }
  const op = verifyUserOperation(mined, claim.entryPointAddress, claim.smartAccountAddress, claim);
  if ("ok" in op) return op;
  let owner: Address;
  try {
    owner = await readContract(client, {
      address: claim.smartAccountAddress,
      abi: accountAbi,
      functionName: "owner",
      blockNumber: receipt.blockNumber,
    });
  } catch (error) {
    // Only the account's own answer (a revert, no such function) is a refusal; the RPC's errors throw.
    const refusedByContract = error instanceof BaseError && error.walk((cause) =>
      cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError
    );
    if (!refusedByContract) throw error;
    return refuse("wrong_owner", `${claim.smartAccountAddress} has no readable owner(): ${error.shortMessage}`);
  }
  if (!isAddressEqual(owner, claim.actorAddress)) {
    return refuse("wrong_owner", `${claim.smartAccountAddress} is owned by ${owner}, not ${claim.actorAddress}`);
  }
  return { ok: true, cost: op.cost, usageActor: getAddress(claim.actorAddress), blockNumber: receipt.blockNumber, userOpHash: op.userOpHash };
}

/**
 * Verifies a sponsored transaction against its claim (see the module header) and answers its cost
 * in wei and the actor its usage is recorded against. Pending refusals come before all others:
 * until the transaction has its confirmations a reorganisation may still change it.
 */
export async function verifySponsoredTransaction(
  client: Client,
  claim: SponsoredTransactionClaim,
  options: SponsoredVerificationOptions,
): Promise<SponsoredVerification> {
  const entryPoints = [...Object.values(KNOWN_ENTRY_POINTS), ...options.extraEntryPoints ?? []];
  const { smartAccountAddress, entryPointAddress } = claim;
  if (claim.mode === "erc4337") {
    if (!smartAccountAddress || !entryPointAddress) {
      return refuse("invalid_claim", "an erc4337 claim names its smartAccountAddress and entryPointAddress");
    }
    if (!entryPoints.some((known) => isAddressEqual(known, entryPointAddress))) {
      return refuse("unknown_entry_point", `${entryPointAddress} is not a known EntryPoint`);
    }
  }
  const chainId = await getChainId(client);
  if (chainId !== claim.chainId) return refuse("wrong_chain", `the claim is on chain ${claim.chainId}, the RPC serves chain ${chainId}`);
  const mined = await minedTransaction(client, claim.txHash, options.confirmations);
  if ("ok" in mined) return mined;
  switch (claim.mode) {
    case "eoa":
      return verifyEoa(mined, claim);
    case "eip7702":
      return verifyEip7702(client, mined, claim, entryPoints);
    case "erc4337":
      return verifyErc4337(client, mined, { ...claim, smartAccountAddress: smartAccountAddress!, entryPointAddress: entryPointAddress! });
  }
}

/** Verifies that `txHash` is the sponsor's native transfer to the vault (see the module header). */
export async function verifyDeposit(
  client: Client,
  input: { txHash: Hex; sponsor: Address; vault: Address; confirmations: number },
): Promise<DepositVerification> {
  const mined = await minedTransaction(client, input.txHash, input.confirmations);
  if ("ok" in mined) return mined;
  const { receipt, transaction } = mined;
  if (!isAddressEqual(transaction.from, input.sponsor)) {
    return refuse("wrong_sender", `sent by ${transaction.from}, not the sponsor ${input.sponsor}`);
  }
  if (!transaction.to || !isAddressEqual(transaction.to, input.vault)) {
    return refuse("not_a_deposit", `sent to ${transaction.to ?? "no address"}, not the vault ${input.vault}`);
  }
  if (transaction.value <= 0n) return refuse("not_a_deposit", "the transaction carries no value");
  return {
    ok: true,
    amount: transaction.value,
    from: getAddress(transaction.from),
    to: getAddress(transaction.to),
    blockNumber: receipt.blockNumber,
  };
}
