// A stand-in Sui full node for tests and benchmarks: no Sui node exists for this machine, so this
// speaks gRPC-web (text and binary, as the SDK's GrpcWebFetchTransport sends) for exactly the
// methods the service calls, on the SDK's own protobuf types, over an in-memory ledger.
//
//   LedgerService.GetEpoch                     the epoch and its reference gas price
//   StateService.ListOwnedObjects              an address's objects, type filter, pages, read mask
//   TransactionExecutionService.ExecuteTransaction
//       checks the signature (verifyTransactionSignature against the sender), the gas coin (owned
//       by the sender, at its current version), and that the one command is
//       <package>::collection::create_collection with its 7 pure arguments in their BCS types;
//       then creates the shared Collection and the organiser's CollectionCap. A digest executed
//       before is answered from the record, as Sui does, without creating anything again.
//
// Every answer carries x-sui-checkpoint-height (and the other x-sui-* headers) like a real node.
// Whatever the stand-in does not model (another method, another read-mask field) is refused
// with UNIMPLEMENTED rather than answered half right.
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveOnLoopback } from "./listen.ts";
import { randomBytes } from "node:crypto";
import { bcs } from "@mysten/sui/bcs";
import { GrpcStatusCode, GrpcTypes } from "@mysten/sui/grpc";
import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { fromBase64, normalizeStructTag, normalizeSuiAddress, parseStructTag, toBase58, toBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";

type GrpcObject = GrpcTypes.Object;
type ExecutedTransaction = GrpcTypes.ExecutedTransaction;

export const SUI_COIN_TYPE = normalizeStructTag("0x2::coin::Coin<0x2::sui::SUI>");

export type ObjectOwner = { address: string } | { sharedSince: bigint };

export interface LedgerObject {
  id: string;
  /** Normalised struct tag. */
  type: string;
  owner: ObjectOwner;
  version: bigint;
  digest: string;
  /** The Move value's BCS. */
  contents: Uint8Array;
  /** Coin<SUI> only. */
  balance?: bigint;
  previousTransaction: string;
}

export interface Ledger {
  epoch: bigint;
  referenceGasPrice: bigint;
  checkpoint: bigint;
  objects: Map<string, LedgerObject>;
  /** Executed transactions by digest: the full answer, before any read mask. */
  transactions: Map<string, ExecutedTransaction>;
}

export type Failure =
  /** The next execution aborts in create_collection (gas charged, nothing created). */
  | { kind: "abort"; abortCode?: bigint }
  /** The next execution runs out of gas (the whole budget charged, nothing created). */
  | { kind: "insufficient_gas" }
  /** The next request (of `method`, if named) gets HTTP 503 and is not processed. */
  | { kind: "transport"; method?: string }
  /** The next execution happens, but its answer is lost (HTTP 503). */
  | { kind: "lost_response" }
  /** The next request (of `method`, if named) is never answered (until close). */
  | { kind: "hang"; method?: string };

export interface SuiNodeOptions {
  packageId: string;
  port?: number;
  referenceGasPrice?: bigint;
  /** The largest page ListOwnedObjects returns (a real node: 1000). */
  maxPageSize?: number;
}

export interface SuiNode {
  url: string;
  network: "sui:localnet";
  packageId: string;
  ledger: Ledger;
  /** Method names in arrival order ("GetEpoch", "ListOwnedObjects", "ExecuteTransaction", ...). */
  requests: string[];
  /** A new Coin<SUI> of `amount` MIST owned by `address`; its object id. */
  fund(address: string, amount: bigint): string;
  /** A new EventPass owned by `owner`; its object id. */
  givePass(owner: string, pass: { collectionId: string; packageId?: string; number?: bigint }): string;
  /** A new object of `type` (only a UID inside) owned by `owner`; its object id. */
  giveObject(owner: string, type: string): string;
  /** Objects owned by `address` (of `type`, if given). */
  ownedBy(address: string, type?: string): LedgerObject[];
  /** Objects of `type`, whoever owns them. */
  objectsOfType(type: string): LedgerObject[];
  failNext(failure: Failure): void;
  /** Called with each request's method before it is answered (a test moves the chain between pages). */
  onRequest(listener: ((method: string) => void) | null): void;
  advanceCheckpoint(by?: bigint): bigint;
  close(): Promise<void>;
}

class GrpcFailure extends Error {
  constructor(readonly code: GrpcStatusCode, message: string) {
    super(message);
  }
}
const invalid = (message: string) => new GrpcFailure(GrpcStatusCode.INVALID_ARGUMENT, message);
const unimplemented = (message: string) => new GrpcFailure(GrpcStatusCode.UNIMPLEMENTED, message);

// The Move structs' layouts, written out here on their own (holdings.ts has its own): a layout
// mistake on either side makes the tests fail instead of agreeing with itself.
const UID = bcs.Address;
const MoveString = bcs.string();
const CoinLayout = bcs.struct("Coin", { id: UID, balance: bcs.u64() });
const CollectionLayout = bcs.struct("Collection", {
  id: UID, name: MoveString, description: MoveString, image_url: MoveString, project_url: MoveString,
  max_supply: bcs.option(bcs.u64()), minted: bcs.u64(), transferable: bcs.bool(),
});
const CollectionCapLayout = bcs.struct("CollectionCap", { id: UID, collection_id: bcs.Address });
const EventPassLayout = bcs.struct("EventPass", {
  id: UID, collection_id: bcs.Address, name: MoveString, description: MoveString, image_url: MoveString,
  project_url: MoveString, number: bcs.u64(), transferable: bcs.bool(),
});
const UidOnly = bcs.struct("UidOnly", { id: UID });

/** The layouts, for tests that read what the stand-in stored. */
export const moveLayouts = { Coin: CoinLayout, Collection: CollectionLayout, CollectionCap: CollectionCapLayout, EventPass: EventPassLayout };

/** create_collection's parameters, in order, as BCS types. */
const CREATE_COLLECTION_PARAMETERS = [
  ["name", MoveString], ["description", MoveString], ["image_url", MoveString], ["project_url", MoveString],
  ["max_supply", bcs.option(bcs.u64())], ["transferable", bcs.bool()], ["organiser", bcs.Address],
] as const;

const newId = () => normalizeSuiAddress(`0x${randomBytes(32).toString("hex")}`);
const newDigest = () => toBase58(randomBytes(32));

// ------------------------------------------------------------------------------------------
// Read masks: the requested paths (snake_case, dotted) select fields of the full answer.
// ------------------------------------------------------------------------------------------

type MaskTree = true | { [field: string]: MaskTree };

const camel = (segment: string) => segment.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The mask of `paths` (or `defaults` when none), each within one of `supported` (else UNIMPLEMENTED). */
function maskOf(paths: readonly string[] | undefined, defaults: readonly string[], supported: readonly string[]): MaskTree {
  const wanted = paths?.length ? paths : defaults;
  const tree: { [field: string]: MaskTree } = {};
  for (const path of wanted) {
    if (!supported.some((s) => path === s || path.startsWith(`${s}.`))) throw unimplemented(`the stand-in does not render read_mask path ${path}`);
    let node: { [field: string]: MaskTree } = tree;
    const segments = path.split(".").map(camel);
    segments.forEach((segment, i) => {
      const existing = node[segment];
      if (existing === true) return;
      if (i === segments.length - 1) node[segment] = true;
      else node = (node[segment] = existing ?? {}) as { [field: string]: MaskTree };
    });
  }
  return tree;
}

/** `message` with only the fields of `mask` (repeated fields: each element masked). */
function applyMask<T>(message: T, mask: MaskTree): T {
  if (mask === true || message === null || typeof message !== "object" || message instanceof Uint8Array) return message;
  if (Array.isArray(message)) return message.map((item) => applyMask(item, mask)) as T;
  const out: Record<string, unknown> = {};
  for (const [field, sub] of Object.entries(mask)) {
    const value = (message as Record<string, unknown>)[field];
    if (value !== undefined) out[field] = applyMask(value, sub);
  }
  return out as T;
}

// ------------------------------------------------------------------------------------------
// gRPC-web framing
// ------------------------------------------------------------------------------------------

function frame(type: 0x00 | 0x80, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) out.set(part, at), at += part.length;
  return out;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

// ------------------------------------------------------------------------------------------
// The node
// ------------------------------------------------------------------------------------------

type Service = typeof GrpcTypes.LedgerService;
type Handler = (input: any) => Promise<object> | object;

export async function startSuiNode(options: SuiNodeOptions): Promise<SuiNode> {
  const packageId = normalizeSuiAddress(options.packageId);
  const maxPageSize = options.maxPageSize ?? 1000;
  const chainId = newDigest();
  const ledger: Ledger = {
    epoch: 1n,
    referenceGasPrice: options.referenceGasPrice ?? 1000n,
    checkpoint: 1n,
    objects: new Map(),
    transactions: new Map(),
  };
  const requests: string[] = [];
  const failures: Failure[] = [];
  let listener: ((method: string) => void) | null = null;
  const genesis = newDigest();

  const put = (object: Omit<LedgerObject, "digest" | "previousTransaction"> & { previousTransaction?: string }) => {
    ledger.objects.set(object.id, { ...object, digest: newDigest(), previousTransaction: object.previousTransaction ?? genesis });
    return object.id;
  };
  const address = (value: string) => normalizeSuiAddress(value);

  const typeMatcher = (filter: string) => {
    let wanted: string;
    let withParams: boolean;
    try {
      wanted = normalizeStructTag(filter);
      withParams = parseStructTag(filter).typeParams.length > 0;
    } catch {
      throw invalid(`invalid object_type filter ${filter}`);
    }
    // A filter without type parameters matches every instantiation (as on a real node).
    return (type: string) => (withParams ? type === wanted : type === wanted || type.startsWith(`${wanted}<`));
  };

  // ---- LedgerService.GetEpoch -------------------------------------------------------------
  const getEpoch: Handler = (request: GrpcTypes.GetEpochRequest): GrpcTypes.GetEpochResponse => {
    if (request.epoch !== undefined && request.epoch !== ledger.epoch) throw unimplemented("the stand-in knows the current epoch only");
    const mask = maskOf(request.readMask?.paths, ["epoch", "reference_gas_price"], ["epoch", "reference_gas_price"]);
    return { epoch: applyMask({ epoch: ledger.epoch, referenceGasPrice: ledger.referenceGasPrice }, mask) };
  };

  // ---- StateService.ListOwnedObjects ------------------------------------------------------
  const renderObject = (object: LedgerObject): GrpcObject => ({
    objectId: object.id,
    version: object.version,
    digest: object.digest,
    owner: "address" in object.owner
      ? { kind: GrpcTypes.Owner_OwnerKind.ADDRESS, address: object.owner.address }
      : { kind: GrpcTypes.Owner_OwnerKind.SHARED, version: object.owner.sharedSince },
    objectType: object.type,
    contents: { name: object.type, value: object.contents },
    balance: object.balance,
    previousTransaction: object.previousTransaction,
  });

  const listOwnedObjects: Handler = (request: GrpcTypes.ListOwnedObjectsRequest): GrpcTypes.ListOwnedObjectsResponse => {
    if (!request.owner || !/^0x[0-9a-fA-F]{1,64}$/.test(request.owner)) throw invalid("owner must be a Sui address");
    const owner = address(request.owner);
    const matches = request.objectType ? typeMatcher(request.objectType) : () => true;
    const mask = maskOf(request.readMask?.paths, ["object_id", "version", "object_type"],
      ["object_id", "version", "digest", "owner", "object_type", "contents", "balance", "previous_transaction"]);
    const pageSize = Math.min(request.pageSize || 50, maxPageSize);
    // The token binds the query, as a real node's does: another owner or filter is refused.
    let after = "";
    if (request.pageToken?.length) {
      let token: { owner: string; type: string; after: string };
      try {
        token = JSON.parse(new TextDecoder().decode(request.pageToken));
      } catch {
        throw invalid("malformed page_token");
      }
      if (token.owner !== owner || token.type !== (request.objectType ?? "")) throw invalid("page_token is for another query");
      after = token.after;
    }
    const owned = [...ledger.objects.values()]
      .filter((o) => "address" in o.owner && o.owner.address === owner && matches(o.type) && o.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const page = owned.slice(0, pageSize);
    const more = owned.length > page.length;
    return {
      objects: page.map((o) => applyMask(renderObject(o), mask)),
      nextPageToken: more
        ? new TextEncoder().encode(JSON.stringify({ owner, type: request.objectType ?? "", after: page[page.length - 1]!.id }))
        : undefined,
    };
  };

  // ---- TransactionExecutionService.ExecuteTransaction -------------------------------------
  const EXECUTED_PATHS = ["digest", "transaction.digest", "transaction.bcs", "transaction.sender", "signatures", "effects", "timestamp", "checkpoint"];

  const executeTransaction: Handler = async (request: GrpcTypes.ExecuteTransactionRequest): Promise<GrpcTypes.ExecuteTransactionResponse> => {
    const mask = maskOf(request.readMask?.paths, ["digest", "effects"], EXECUTED_PATHS);
    const bytes = request.transaction?.bcs?.value;
    if (!bytes?.length) throw invalid("transaction.bcs is required");
    let data: ReturnType<typeof bcs.TransactionData.parse>;
    try {
      data = bcs.TransactionData.parse(bytes);
    } catch {
      throw invalid("transaction.bcs is not a TransactionData");
    }
    const v1 = data.V1;
    if (!v1) throw invalid("unsupported TransactionData version");
    const sender = address(v1.sender);
    if (request.signatures.length !== 1) throw invalid(`expected one signature (no sponsor), got ${request.signatures.length}`);
    const signatureBytes = request.signatures[0]!.bcs?.value;
    if (!signatureBytes?.length) throw invalid("signatures[0].bcs is required");
    try {
      await verifyTransactionSignature(bytes, toBase64(signatureBytes), { address: sender });
    } catch {
      throw invalid(`signature is not valid for sender ${sender}`);
    }
    const digest = TransactionDataBuilder.getDigestFromBytes(bytes);
    const known = ledger.transactions.get(digest);
    if (known) return { transaction: applyMask(known, mask) };

    const { gas, price, budget } = checkGas(v1, sender);
    const call = checkCreateCollection(v1);

    const failure = takeFailure((f) => f.kind === "abort" || f.kind === "insufficient_gas" || f.kind === "lost_response");
    const lamport = 1n + gas.reduce((max, coin) => (coin.version > max ? coin.version : max), 0n);
    const created: LedgerObject[] = [];
    let status: GrpcTypes.ExecutionStatus;
    let computationCost = price * 1000n;
    let storageCost = 988_000n; // the gas coin rewritten
    if (failure?.kind === "abort") {
      status = {
        success: false,
        error: {
          description: `MoveAbort in create_collection with code ${failure.abortCode ?? 1n}`,
          command: 0n,
          kind: GrpcTypes.ExecutionError_ExecutionErrorKind.MOVE_ABORT,
          errorDetails: {
            oneofKind: "abort",
            abort: {
              abortCode: failure.abortCode ?? 1n,
              location: { package: packageId, module: "collection", function: 0, instruction: 7, functionName: "create_collection" },
            },
          },
        },
      };
    } else if (failure?.kind === "insufficient_gas") {
      computationCost = budget;
      storageCost = 0n;
      status = {
        success: false,
        error: { description: "InsufficientGas", kind: GrpcTypes.ExecutionError_ExecutionErrorKind.INSUFFICIENT_GAS, errorDetails: { oneofKind: undefined } },
      };
    } else {
      status = { success: true };
      const collectionId = newId();
      created.push({
        id: collectionId, type: normalizeStructTag(`${packageId}::collection::Collection`), owner: { sharedSince: lamport }, version: lamport,
        digest: newDigest(), previousTransaction: digest, contents: CollectionLayout.serialize({
          id: collectionId, name: call.name, description: call.description, image_url: call.image_url, project_url: call.project_url,
          max_supply: call.max_supply, minted: 0n, transferable: call.transferable,
        }).toBytes(),
      });
      const capId = newId();
      created.push({
        id: capId, type: normalizeStructTag(`${packageId}::collection::CollectionCap`), owner: { address: address(call.organiser) },
        version: lamport, digest: newDigest(), previousTransaction: digest,
        contents: CollectionCapLayout.serialize({ id: capId, collection_id: collectionId }).toBytes(),
      });
      storageCost += 2_500_000n * BigInt(created.length);
    }
    const charged = computationCost + storageCost > budget ? budget : computationCost + storageCost;
    if (charged === budget) storageCost = budget - computationCost;

    // Gas: the payment coins are merged into the first, which pays (as on Sui).
    const [payer, ...merged] = gas;
    const before = { version: payer!.version, digest: payer!.digest };
    const total = gas.reduce((sum, coin) => sum + coin.balance!, 0n);
    for (const coin of merged) ledger.objects.delete(coin.id);
    payer!.balance = total - charged;
    payer!.contents = CoinLayout.serialize({ id: payer!.id, balance: payer!.balance }).toBytes();
    payer!.version = lamport;
    payer!.digest = newDigest();
    payer!.previousTransaction = digest;
    for (const object of created) ledger.objects.set(object.id, object);

    const senderOwner = { kind: GrpcTypes.Owner_OwnerKind.ADDRESS, address: sender };
    const gasChange: GrpcTypes.ChangedObject = {
      objectId: payer!.id, inputState: GrpcTypes.ChangedObject_InputObjectState.EXISTS, inputVersion: before.version,
      inputDigest: before.digest, inputOwner: senderOwner, outputState: GrpcTypes.ChangedObject_OutputObjectState.OBJECT_WRITE,
      outputVersion: lamport, outputDigest: payer!.digest, outputOwner: senderOwner,
      idOperation: GrpcTypes.ChangedObject_IdOperation.NONE, objectType: SUI_COIN_TYPE,
    };
    const effects: GrpcTypes.TransactionEffects = {
      digest: newDigest(),
      version: 2,
      status,
      epoch: ledger.epoch,
      gasUsed: { computationCost, storageCost, storageRebate: 0n, nonRefundableStorageFee: 0n },
      transactionDigest: digest,
      gasObject: gasChange,
      dependencies: [],
      lamportVersion: lamport,
      changedObjects: [
        gasChange,
        ...merged.map((coin): GrpcTypes.ChangedObject => ({
          objectId: coin.id, inputState: GrpcTypes.ChangedObject_InputObjectState.EXISTS, inputVersion: coin.version,
          inputDigest: coin.digest, inputOwner: senderOwner, outputState: GrpcTypes.ChangedObject_OutputObjectState.DOES_NOT_EXIST,
          idOperation: GrpcTypes.ChangedObject_IdOperation.DELETED, objectType: SUI_COIN_TYPE,
        })),
        ...created.map((object): GrpcTypes.ChangedObject => ({
          objectId: object.id, inputState: GrpcTypes.ChangedObject_InputObjectState.DOES_NOT_EXIST,
          outputState: GrpcTypes.ChangedObject_OutputObjectState.OBJECT_WRITE, outputVersion: object.version,
          outputDigest: object.digest, outputOwner: renderObject(object).owner,
          idOperation: GrpcTypes.ChangedObject_IdOperation.CREATED, objectType: object.type,
        })),
      ],
      unchangedConsensusObjects: [],
      unchangedLoadedRuntimeObjects: [],
    };
    const executed: ExecutedTransaction = {
      digest,
      transaction: { digest, bcs: { name: "TransactionData", value: bytes }, sender },
      signatures: [{ bcs: { value: signatureBytes }, signature: { oneofKind: undefined } }],
      effects,
      balanceChanges: [],
    };
    ledger.transactions.set(digest, executed);
    ledger.checkpoint++;
    if (failure?.kind === "lost_response") throw new LostResponse();
    return { transaction: applyMask(executed, mask) };
  };

  /** The payment coins, after Sui's checks: Coin<SUI> of the sender at the referenced version, price, budget. */
  function checkGas(v1: NonNullable<ReturnType<typeof bcs.TransactionData.parse>["V1"]>, sender: string) {
    if (address(v1.gasData.owner) !== sender) throw invalid("sponsored transactions are not supported here");
    if (v1.expiration.$kind === "Epoch" && BigInt(v1.expiration.Epoch) < ledger.epoch) throw invalid("transaction expired");
    if (v1.expiration.$kind !== "None" && v1.expiration.$kind !== "Epoch") throw invalid("unsupported expiration");
    const price = BigInt(v1.gasData.price);
    const budget = BigInt(v1.gasData.budget);
    if (price < ledger.referenceGasPrice) throw invalid(`gas price ${price} is below the reference gas price ${ledger.referenceGasPrice}`);
    if (budget < price * 1000n) throw invalid(`gas budget ${budget} is below the minimum ${price * 1000n}`);
    if (v1.gasData.payment.length === 0) throw invalid("no gas payment");
    const coins = v1.gasData.payment.map((ref) => {
      const coin = ledger.objects.get(address(ref.objectId));
      if (!coin || coin.type !== SUI_COIN_TYPE) throw invalid(`gas object ${ref.objectId} is not a SUI coin`);
      if (!("address" in coin.owner) || coin.owner.address !== sender) throw invalid(`gas object ${ref.objectId} is not owned by the sender ${sender}`);
      if (BigInt(ref.version) !== coin.version || ref.digest !== coin.digest) {
        throw invalid(`gas object ${ref.objectId} version ${ref.version} is not available for consumption, current version: ${coin.version}`);
      }
      return coin;
    });
    const balance = coins.reduce((sum, coin) => sum + coin.balance!, 0n);
    if (balance < budget) throw invalid(`gas balance ${balance} is below the budget ${budget}`);
    return { gas: coins, price, budget };
  }

  /** The one command's arguments, decoded; anything but create_collection of our package is refused. */
  function checkCreateCollection(v1: NonNullable<ReturnType<typeof bcs.TransactionData.parse>["V1"]>) {
    const kind = v1.kind.ProgrammableTransaction;
    if (!kind) throw invalid("only programmable transactions are supported here");
    if (kind.commands.length !== 1) throw invalid(`expected one command, got ${kind.commands.length}`);
    const call = kind.commands[0]!.MoveCall;
    if (!call) throw invalid(`expected a MoveCall, got ${kind.commands[0]!.$kind}`);
    const target = `${address(call.package)}::${call.module}::${call.function}`;
    if (target !== `${packageId}::collection::create_collection`) throw invalid(`unexpected move call target ${target}`);
    if (call.typeArguments.length) throw invalid("create_collection takes no type arguments");
    if (call.arguments.length !== CREATE_COLLECTION_PARAMETERS.length) {
      throw invalid(`create_collection takes ${CREATE_COLLECTION_PARAMETERS.length} arguments, got ${call.arguments.length}`);
    }
    const values: Record<string, any> = {};
    call.arguments.forEach((argument, i) => {
      const [name, type] = CREATE_COLLECTION_PARAMETERS[i]!;
      const input = argument.$kind === "Input" ? kind.inputs[argument.Input] : undefined;
      if (!input?.Pure) throw invalid(`argument ${i} (${name}) must be a pure input`);
      const raw = fromBase64(input.Pure.bytes);
      let value: unknown;
      try {
        value = type.parse(raw);
      } catch {
        throw invalid(`argument ${i} (${name}) is not a ${type.name}`);
      }
      // Canonical and complete: re-encoding gives the same bytes (no trailing bytes, bool 0 or 1,
      // valid UTF-8, which the lenient decoder would otherwise replace).
      const again = (type as { serialize(v: unknown): { toBytes(): Uint8Array } }).serialize(value).toBytes();
      if (toBase64(again) !== toBase64(raw)) throw invalid(`argument ${i} (${name}) is not a ${type.name}`);
      values[name] = value;
    });
    return values as { name: string; description: string; image_url: string; project_url: string; max_supply: string | null; transferable: boolean; organiser: string };
  }

  class LostResponse extends Error {}

  function takeFailure(applies: (failure: Failure) => boolean): Failure | undefined {
    const index = failures.findIndex(applies);
    return index < 0 ? undefined : failures.splice(index, 1)[0];
  }

  const services: [Service | typeof GrpcTypes.StateService | typeof GrpcTypes.TransactionExecutionService, string, Handler][] = [
    [GrpcTypes.LedgerService, "GetEpoch", getEpoch],
    [GrpcTypes.StateService, "ListOwnedObjects", listOwnedObjects],
    [GrpcTypes.TransactionExecutionService, "ExecuteTransaction", executeTransaction],
  ];
  type Method = (typeof GrpcTypes.LedgerService.methods)[number];
  const routes = new Map<string, { method: Method; handle: Handler }>(services.map(([service, name, handle]) => {
    const method = service.methods.find((m) => m.name === name)!;
    return [`/${service.typeName}/${name}`, { method, handle }];
  }));

  const chainHeaders = () => ({
    "x-sui-chain": "localnet",
    "x-sui-chain-id": chainId,
    "x-sui-epoch": String(ledger.epoch),
    "x-sui-checkpoint-height": String(ledger.checkpoint),
    "x-sui-lowest-available-checkpoint": "0",
    "x-sui-lowest-available-checkpoint-objects": "0",
    "x-sui-timestamp-ms": String(Date.now()),
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "").split("?")[0]!;
    const methodName = path.split("/").pop() ?? "";
    requests.push(methodName);
    listener?.(methodName);
    const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim();
    const text = contentType === "application/grpc-web-text" || contentType === "application/grpc-web-text+proto";
    const binary = contentType === "application/grpc-web" || contentType === "application/grpc-web+proto";
    const body = await readBody(request);
    if (request.method !== "POST" || (!text && !binary)) {
      response.writeHead(415, { "content-type": "text/plain" }).end("gRPC-web only");
      return;
    }
    const outage = takeFailure((f) => (f.kind === "transport" || f.kind === "hang") && (!f.method || f.method === methodName));
    if (outage?.kind === "hang") return;
    if (outage) {
      response.writeHead(503, { "content-type": "text/plain" }).end("upstream unavailable");
      return;
    }
    const responseType = text ? "application/grpc-web-text" : "application/grpc-web+proto";
    const status = (code: GrpcStatusCode, message: string) => {
      // Trailers-only: the status in the headers, no body.
      response.writeHead(200, { "content-type": responseType, ...chainHeaders(), "grpc-status": String(code), "grpc-message": encodeURIComponent(message) }).end();
    };
    const route = routes.get(path);
    if (!route) return status(GrpcStatusCode.UNIMPLEMENTED, `the stand-in does not implement ${path}`);
    const raw = text ? Buffer.from(body.toString("latin1"), "base64") : body;
    if (raw.length < 5 || raw[0] !== 0 || raw.readUInt32BE(1) !== raw.length - 5) return status(GrpcStatusCode.INVALID_ARGUMENT, "expected one uncompressed gRPC-web frame");
    let output: object;
    try {
      output = await route.handle(route.method.I.fromBinary(raw.subarray(5)));
    } catch (error) {
      if (error instanceof LostResponse) {
        response.writeHead(503, { "content-type": "text/plain" }).end("upstream unavailable");
        return;
      }
      if (error instanceof GrpcFailure) return status(error.code, error.message);
      return status(GrpcStatusCode.INTERNAL, String((error as Error)?.message ?? error));
    }
    const payload = concat([
      // create() restores the empty repeated fields a read mask left out.
      frame(0x00, route.method.O.toBinary(route.method.O.create(output as never))),
      frame(0x80, new TextEncoder().encode("grpc-status:0\r\ngrpc-message:\r\n")),
    ]);
    response.writeHead(200, { "content-type": responseType, ...chainHeaders() }).end(text ? Buffer.from(toBase64(payload), "latin1") : payload);
  }

  // A bug of the stand-in is a 500: the real service's own refusals are answered in `answer`.
  const server = await serveOnLoopback("sui-node", answer, { port: options.port });

  return {
    url: server.url,
    network: "sui:localnet",
    packageId,
    ledger,
    requests,
    fund(owner, amount) {
      const id = newId();
      put({ id, type: SUI_COIN_TYPE, owner: { address: address(owner) }, version: 1n, balance: amount, contents: CoinLayout.serialize({ id, balance: amount }).toBytes() });
      ledger.checkpoint++;
      return id;
    },
    givePass(owner, pass) {
      const id = newId();
      const type = normalizeStructTag(`${normalizeSuiAddress(pass.packageId ?? packageId)}::collection::EventPass`);
      const contents = EventPassLayout.serialize({
        id, collection_id: normalizeSuiAddress(pass.collectionId), name: "Pass", description: "", image_url: "", project_url: "",
        number: pass.number ?? 1n, transferable: true,
      }).toBytes();
      put({ id, type, owner: { address: address(owner) }, version: 1n, contents });
      ledger.checkpoint++;
      return id;
    },
    giveObject(owner, type) {
      const id = newId();
      put({ id, type: normalizeStructTag(type), owner: { address: address(owner) }, version: 1n, contents: UidOnly.serialize({ id }).toBytes() });
      ledger.checkpoint++;
      return id;
    },
    ownedBy(owner, type) {
      const matches = type ? typeMatcher(type) : () => true;
      return [...ledger.objects.values()].filter((o) => "address" in o.owner && o.owner.address === address(owner) && matches(o.type));
    },
    objectsOfType(type) {
      const matches = typeMatcher(type);
      return [...ledger.objects.values()].filter((o) => matches(o.type));
    },
    failNext(failure) {
      failures.push(failure);
    },
    onRequest(value) {
      listener = value;
    },
    advanceCheckpoint(by = 1n) {
      return (ledger.checkpoint += by);
    },
    close: server.close,
  };
}
