// A checkout collection's contract, as the service sees it: reading it at registration, building the
// payment transactions of the hosted page's prepare step, signing price vouchers, and verifying a
// mint from its receipt. Imports nothing Deno-specific (runs in the gateway under Deno and in vitest).
//
// ## Supported collection interface
//
// The checkout works with any ERC-721 contract that implements the following (the mint function
// of each pricing strategy it is registered with). The reference implementation is
// _shared/chain/contracts/CheckoutCollection.sol: OpenZeppelin ERC-721 + Ownable + EIP-712, compiled
// with solc from npm by scripts/lib/contracts.ts.
//
//   function owner() view returns (address)
//       Registration: must be one of the registering key owner's linked addresses.
//
//   function mint(address to, bytes32 checkoutRef) payable
//       Static pricing: mints one token to `to`, paid by the caller at the registered price.
//       Native currency: msg.value == price. ERC-20: msg.value == 0 and the collection pulls the
//       price with transferFrom(caller, payee, price), so the payer approves the collection
//       first (the prepare step returns that approval).
//
//   function mintWithVoucher(address to, bytes32 checkoutRef, uint256 price, uint256 deadline,
//                            bytes signature) payable
//       Dynamic pricing: as `mint`, at `price`, only with the service's EIP-712 signature of
//       MintVoucher(bytes32 checkoutRef,address to,uint256 price,uint256 deadline), refused after
//       `deadline` (unix seconds). The signing domain is what eip712Domain() (ERC-5267) reports;
//       the reference's is { name: the collection's name, version: "1", chainId, the contract }.
//
//   event CheckoutMinted(bytes32 indexed checkoutRef, address indexed to,
//                        uint256 indexed tokenId, address paymentToken, uint256 amount)
//       Emitted by the collection for every checkout mint, beside the ERC-721
//       Transfer(address(0), to, tokenId). paymentToken is address(0) for the native currency.
//
//   A checkoutRef is accepted once: a second mint with the same reference reverts. That is what
//   ties one transaction to exactly one checkout. The reference of a checkout is its 24-hex id,
//   right-aligned in 32 bytes (checkoutRefFromId), so a reconciler can find a mint by filtering
//   the collection's CheckoutMinted logs on the indexed checkoutRef topic (findCheckoutMints). An
//   ERC-20 payment token must implement decimals(); its symbol() is read too, for display only (a
//   token without a readable string symbol is shown by its address).
//
// The reference also exposes its configuration, for checking a registration against the chain:
// pricing() (0 static, 1 dynamic), staticPrice(), paymentToken(), priceSigner(), and
// checkoutRefUsed(ref). It pays the owner() directly, in the native currency or the ERC-20.
import {
  type Address,
  BaseError,
  type Client,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  decodeEventLog,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  isAddressEqual,
  type LocalAccount,
  pad,
  parseAbi,
  TransactionReceiptNotFoundError,
  type TransactionReceipt,
  zeroAddress,
} from "viem";
import { getChainId, getCode, getLogs, getTransactionReceipt, readContract } from "viem/actions";
import { confirmationsOf } from "../chain/confirmations.ts";

/** The reference collection's ABI; tests/chain compares it with what solc compiles. */
export const checkoutCollectionAbi = parseAbi([
  "constructor(string name_, string symbol_, address initialOwner, address paymentToken_, uint8 pricing_, uint256 staticPrice_, address priceSigner_)",
  "error CheckoutRefAlreadyUsed(bytes32 checkoutRef)",
  "error ECDSAInvalidSignature()",
  "error ECDSAInvalidSignatureLength(uint256 length)",
  "error ECDSAInvalidSignatureS(bytes32 s)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC721InsufficientApproval(address operator, uint256 tokenId)",
  "error ERC721InvalidApprover(address approver)",
  "error ERC721InvalidOperator(address operator)",
  "error ERC721InvalidOwner(address owner)",
  "error ERC721InvalidReceiver(address receiver)",
  "error ERC721InvalidSender(address sender)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error FailedCall()",
  "error InsufficientBalance(uint256 balance, uint256 needed)",
  "error InvalidShortString()",
  "error InvalidVoucherSigner(address recovered)",
  "error MissingPriceSigner()",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)",
  "error SafeERC20FailedOperation(address token)",
  "error StringTooLong(string str)",
  "error VoucherExpired(uint256 deadline)",
  "error WrongPayment(uint256 expected, uint256 received)",
  "error WrongPricing(uint8 pricing)",
  "event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
  "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
  "event CheckoutMinted(bytes32 indexed checkoutRef, address indexed to, uint256 indexed tokenId, address paymentToken, uint256 amount)",
  "event EIP712DomainChanged()",
  "event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
  "event PriceSignerChanged(address signer)",
  "event StaticPriceChanged(uint256 price)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "function MINT_VOUCHER_TYPEHASH() view returns (bytes32)",
  "function approve(address to, uint256 tokenId)",
  "function balanceOf(address owner) view returns (uint256)",
  "function checkoutRefUsed(bytes32 checkoutRef) view returns (bool)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function getApproved(uint256 tokenId) view returns (address)",
  "function isApprovedForAll(address owner, address operator) view returns (bool)",
  "function mint(address to, bytes32 checkoutRef) payable returns (uint256 tokenId)",
  "function mintWithVoucher(address to, bytes32 checkoutRef, uint256 price, uint256 deadline, bytes signature) payable returns (uint256 tokenId)",
  "function name() view returns (string)",
  "function owner() view returns (address)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function paymentToken() view returns (address)",
  "function priceSigner() view returns (address)",
  "function pricing() view returns (uint8)",
  "function renounceOwnership()",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
  "function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)",
  "function setApprovalForAll(address operator, bool approved)",
  "function setPriceSigner(address signer)",
  "function setStaticPrice(uint256 price)",
  "function staticPrice() view returns (uint256)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function symbol() view returns (string)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function transferFrom(address from, address to, uint256 tokenId)",
  "function transferOwnership(address newOwner)",
]);

/** The events verifyMintReceipt decodes: those every supported collection emits (see above). */
const checkoutEventsAbi = parseAbi([
  "event CheckoutMinted(bytes32 indexed checkoutRef, address indexed to, uint256 indexed tokenId, address paymentToken, uint256 amount)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
]);

/** The payment token of the chain's native currency. */
export const NATIVE_TOKEN: Address = zeroAddress;

export type MintPricing = "static" | "dynamic";
/** The reference contract's `Pricing` enum (constructor argument and `pricing()`). */
export const PRICING_ENUM = { static: 0, dynamic: 1 } as const satisfies Record<MintPricing, number>;

/** The 32-byte checkout reference of a checkout id (24 hex digits), right-aligned. */
export function checkoutRefFromId(checkoutId: string): Hex {
  if (!/^[0-9a-f]{24}$/i.test(checkoutId)) throw new Error(`not a checkout id: ${checkoutId}`);
  return pad(`0x${checkoutId.toLowerCase()}`, { size: 32 });
}

/** A chain read that can fail because of the contract (not the RPC): transport errors throw. */
export type ChainRead<T> =
  | { ok: true; value: T }
  | { ok: false; code: "not_a_contract" | "call_failed"; message: string };

/** Calls a view function; a contract without code, without that function or reverting is a refusal. */
async function readView<T>(client: Client, address: Address, read: () => Promise<T>): Promise<ChainRead<T>> {
  const code = await getCode(client, { address });
  if (!code || code === "0x") return { ok: false, code: "not_a_contract", message: `no contract at ${address}` };
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    // viem wraps every failure of a call, the RPC's included: only the contract's own answer is a refusal.
    const refusedByContract = error instanceof BaseError && error.walk((cause) =>
      cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError
    );
    if (!refusedByContract) throw error;
    return { ok: false, code: "call_failed", message: error.shortMessage };
  }
}

/** The collection's `owner()`, checksummed. */
export function readCollectionOwner(client: Client, collection: Address): Promise<ChainRead<Address>> {
  return readView(client, collection, async () =>
    getAddress(await readContract(client, { address: collection, abi: checkoutCollectionAbi, functionName: "owner" })));
}

/** Decimals of a payment token: 18 for the native currency, else the ERC-20's `decimals()`. */
export function readTokenDecimals(client: Client, token: Address): Promise<ChainRead<number>> {
  if (isAddressEqual(token, NATIVE_TOKEN)) return Promise.resolve({ ok: true, value: 18 });
  return readView(client, token, () => readContract(client, { address: token, abi: erc20Abi, functionName: "decimals" }));
}

/** Longest symbol() kept for display; longer ones (or empty, or with control characters) are none. */
const MAX_SYMBOL_LENGTH = 32;

/**
 * The ERC-20's `symbol()`, for display: null for the native currency, and a refusal for a token
 * whose symbol() is missing, reverts or is not a short printable string (bytes32 symbols included).
 */
export async function readTokenSymbol(client: Client, token: Address): Promise<ChainRead<string | null>> {
  if (isAddressEqual(token, NATIVE_TOKEN)) return { ok: true, value: null };
  const read = await readView(client, token, () => readContract(client, { address: token, abi: erc20Abi, functionName: "symbol" }));
  if (!read.ok) return read;
  const symbol = read.value.trim();
  // deno-lint-ignore no-control-regex
  if (!symbol || [...symbol].length > MAX_SYMBOL_LENGTH || /[\u0000-\u001f\u007f-\u009f]/.test(symbol)) {
    return { ok: false, code: "call_failed", message: "symbol() is not a short printable string" };
  }
  return { ok: true, value: symbol };
}

export interface VoucherDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/** The collection's EIP-712 domain, from `eip712Domain()` (ERC-5267). */
export function readVoucherDomain(client: Client, collection: Address): Promise<ChainRead<VoucherDomain>> {
  return readView(client, collection, async () => {
    const [, name, version, chainId, verifyingContract] = await readContract(client, {
      address: collection,
      abi: checkoutCollectionAbi,
      functionName: "eip712Domain",
    });
    return { name, version, chainId: Number(chainId), verifyingContract };
  });
}

export interface MintVoucher {
  checkoutRef: Hex;
  to: Address;
  price: bigint;
  /** Unix seconds; the contract refuses the voucher after it. */
  deadline: bigint;
}

const mintVoucherTypes = {
  MintVoucher: [
    { name: "checkoutRef", type: "bytes32" },
    { name: "to", type: "address" },
    { name: "price", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The price signer's EIP-712 signature of a voucher, as `mintWithVoucher` checks it. */
export function signMintVoucher(account: LocalAccount, domain: VoucherDomain, voucher: MintVoucher): Promise<Hex> {
  return account.signTypedData({ domain, types: mintVoucherTypes, primaryType: "MintVoucher", message: voucher });
}

/** Calldata of a static-price mint. */
export function encodeMint(params: { to: Address; checkoutRef: Hex }): Hex {
  return encodeFunctionData({ abi: checkoutCollectionAbi, functionName: "mint", args: [params.to, params.checkoutRef] });
}

/** Calldata of a dynamic-price mint with the service's voucher. */
export function encodeMintWithVoucher(voucher: MintVoucher, signature: Hex): Hex {
  return encodeFunctionData({
    abi: checkoutCollectionAbi,
    functionName: "mintWithVoucher",
    args: [voucher.to, voucher.checkoutRef, voucher.price, voucher.deadline, signature],
  });
}

export interface PaymentTransaction {
  kind: "approve" | "mint";
  chainId: number;
  to: Address;
  data: Hex;
  value: bigint;
}

/**
 * The transactions a payer signs, in order: for an ERC-20 price, the approval of exactly `amount`
 * to the collection, then the mint (`mintData` from encodeMint or encodeMintWithVoucher), which
 * carries `amount` as value only for the native currency.
 */
export function paymentTransactions(params: {
  chainId: number;
  collection: Address;
  paymentToken: Address;
  amount: bigint;
  mintData: Hex;
}): PaymentTransaction[] {
  const { chainId, collection, paymentToken, amount, mintData } = params;
  const mint: PaymentTransaction = { kind: "mint", chainId, to: collection, data: mintData, value: 0n };
  if (isAddressEqual(paymentToken, NATIVE_TOKEN)) return [{ ...mint, value: amount }];
  const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [collection, amount] });
  return [{ kind: "approve", chainId, to: paymentToken, data: approve, value: 0n }, mint];
}

export interface ExpectedMint {
  txHash: Hex;
  chainId: number;
  collection: Address;
  checkoutRef: Hex;
  /** The wallet the NFT must be minted to; null: the transaction's sender (an ordinary wallet's payer). */
  payer: Address | null;
  /** NATIVE_TOKEN or the ERC-20's address. */
  paymentToken: Address;
  /** Smallest units of the payment token. */
  amount: bigint;
  /** Blocks including the transaction's own: 1 accepts a just-mined transaction. */
  confirmations: number;
}

export type MintRefusalCode =
  | "receipt_not_found"
  | "not_enough_confirmations"
  | "transaction_reverted"
  | "wrong_chain"
  | "wrong_contract"
  | "wrong_checkout_reference"
  | "wrong_amount"
  | "wrong_token"
  | "not_minted_to_payer";

export type MintVerification =
  | { ok: true; tokenIds: bigint[]; owner: Address; amount: bigint; paymentToken: Address; blockNumber: bigint }
  | { ok: false; code: MintRefusalCode; message: string };

const refuse = (code: MintRefusalCode, message: string): MintVerification => ({ ok: false, code, message });

type CheckoutMintedArgs = { checkoutRef: Hex; to: Address; tokenId: bigint; paymentToken: Address; amount: bigint };
type TransferArgs = { from: Address; to: Address; tokenId: bigint };

/** The collection's own CheckoutMinted and Transfer logs; logs of other contracts are ignored. */
function collectionEvents(receipt: TransactionReceipt, collection: Address) {
  const minted: CheckoutMintedArgs[] = [];
  const transfers: TransferArgs[] = [];
  let collectionLogs = 0;
  for (const log of receipt.logs) {
    if (!isAddressEqual(log.address, collection)) continue;
    collectionLogs++;
    try {
      const event = decodeEventLog({ abi: checkoutEventsAbi, data: log.data, topics: log.topics, strict: true });
      if (event.eventName === "CheckoutMinted") minted.push(event.args);
      else transfers.push(event.args);
    } catch {
      // Another event of the collection (Approval, ...) or one shaped differently: not a mint.
    }
  }
  return { collectionLogs, minted, transfers };
}

/** A CheckoutMinted log of a collection, as findCheckoutMints answers it. */
export interface FoundCheckoutMint {
  checkoutRef: Hex;
  to: Address;
  txHash: Hex;
  blockNumber: bigint;
}

/** Most checkout references in one eth_getLogs topic filter (providers limit the filter's size). */
export const MAX_REFS_PER_LOG_QUERY = 100;

/**
 * The CheckoutMinted logs of `collection` carrying one of `checkoutRefs`, in blocks `fromBlock` to
 * `toBlock` (inclusive): one eth_getLogs per MAX_REFS_PER_LOG_QUERY references, the references as
 * alternatives of the indexed checkoutRef topic. Pending and removed (reorganised) logs are left
 * out; verifying the receipt (verifyMintReceipt) decides the rest. Transport errors throw.
 */
export async function findCheckoutMints(client: Client, params: {
  collection: Address;
  checkoutRefs: Hex[];
  fromBlock: bigint;
  toBlock: bigint;
}): Promise<FoundCheckoutMint[]> {
  const found: FoundCheckoutMint[] = [];
  for (let i = 0; i < params.checkoutRefs.length; i += MAX_REFS_PER_LOG_QUERY) {
    const logs = await getLogs(client, {
      address: params.collection,
      event: checkoutEventsAbi[0],
      args: { checkoutRef: params.checkoutRefs.slice(i, i + MAX_REFS_PER_LOG_QUERY) },
      fromBlock: params.fromBlock,
      toBlock: params.toBlock,
      strict: true,
    });
    for (const log of logs) {
      if (log.removed || log.transactionHash === null || log.blockNumber === null) continue;
      found.push({ checkoutRef: log.args.checkoutRef, to: log.args.to, txHash: log.transactionHash, blockNumber: log.blockNumber });
    }
  }
  return found;
}

/**
 * Verifies that `txHash` paid for the checkout: mined on the right chain with enough confirmations,
 * successful, and minting from `collection` to `payer` under `checkoutRef`, for `amount` of
 * `paymentToken`. The contract is identified by its logs, not by the transaction's `to`, so a mint
 * made through a smart-contract wallet or a batch is accepted too.
 *
 * Confirmations are checked before any other verdict: until then a reorganisation may still change
 * the receipt, so "not yet" is the only answer that cannot turn out wrong. Transport errors throw.
 */
export async function verifyMintReceipt(client: Client, expected: ExpectedMint): Promise<MintVerification> {
  const chainId = await getChainId(client);
  if (chainId !== expected.chainId) {
    return refuse("wrong_chain", `the checkout is on chain ${expected.chainId}, the RPC serves chain ${chainId}`);
  }
  let receipt: TransactionReceipt;
  try {
    receipt = await getTransactionReceipt(client, { hash: expected.txHash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) {
      return refuse("receipt_not_found", `no mined transaction ${expected.txHash} on chain ${chainId}`);
    }
    throw error;
  }
  const payer = expected.payer ?? receipt.from;
  const confirmations = await confirmationsOf(client, receipt.blockNumber);
  if (confirmations < BigInt(expected.confirmations)) {
    return refuse("not_enough_confirmations", `${confirmations} of ${expected.confirmations} confirmations`);
  }
  if (receipt.status !== "success") return refuse("transaction_reverted", `transaction ${expected.txHash} reverted`);

  const { collectionLogs, minted, transfers } = collectionEvents(receipt, expected.collection);
  if (collectionLogs === 0) return refuse("wrong_contract", `no event of collection ${expected.collection}`);
  const ours = minted.filter((event) => event.checkoutRef.toLowerCase() === expected.checkoutRef.toLowerCase());
  if (ours.length === 0) {
    return refuse("wrong_checkout_reference", `no CheckoutMinted with reference ${expected.checkoutRef}`);
  }
  for (const event of ours) {
    if (!isAddressEqual(event.paymentToken, expected.paymentToken)) {
      return refuse("wrong_token", `paid in ${event.paymentToken}, expected ${expected.paymentToken}`);
    }
    if (event.amount !== expected.amount) return refuse("wrong_amount", `paid ${event.amount}, expected ${expected.amount}`);
    const transferred = transfers.some((transfer) =>
      isAddressEqual(transfer.from, zeroAddress) && isAddressEqual(transfer.to, payer) &&
      transfer.tokenId === event.tokenId
    );
    if (!isAddressEqual(event.to, payer) || !transferred) {
      return refuse("not_minted_to_payer", `token ${event.tokenId} was not minted to ${payer}`);
    }
  }
  return {
    ok: true,
    tokenIds: ours.map((event) => event.tokenId),
    owner: getAddress(payer),
    amount: expected.amount,
    paymentToken: getAddress(expected.paymentToken),
    blockNumber: receipt.blockNumber,
  };
}
