// Publishing a collection through the real SuiGrpcClient against the stand-in node: the bytes the
// service signs are what executes, once; refusals, aborts and outages each come back as their kind.
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { RpcError } from "@mysten/sui/grpc";
import { Transaction } from "@mysten/sui/transactions";
import { fromBase64, normalizeStructTag, toBase64 } from "@mysten/sui/utils";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { moveLayouts, SUI_COIN_TYPE } from "../../scripts/lib/sui-node.ts";
import { createSuiClient, suiClientFor } from "../../supabase/functions/_shared/sui/client.ts";
import { SuiRejected, SuiUnavailable, SuiUnfunded } from "../../supabase/functions/_shared/sui/errors.ts";
import { suiNetworkConfigSchema } from "../../supabase/functions/_shared/sui/network.ts";
import {
  buildPublishTransaction,
  type CollectionInput,
  DEFAULT_PUBLISH_GAS_BUDGET,
  executePrepared,
  preparePublish,
} from "../../supabase/functions/_shared/sui/publish.ts";
import { randomAddress, type Sui, startSui } from "./sui-fixtures.ts";

const ONE_SUI = 1_000_000_000n;
const REFERENCE_GAS_PRICE = 750n;

let sui: Sui;
beforeAll(async () => {
  sui = await startSui({ referenceGasPrice: REFERENCE_GAS_PRICE });
});
afterAll(() => sui?.node.close());

let organiser: string;
let input: CollectionInput;
beforeEach(() => {
  organiser = randomAddress();
  input = {
    name: "Sui Builders Night",
    description: "Passes for the night — ünïcode too",
    imageUrl: "https://example.com/pass.png",
    projectUrl: "https://example.com",
    maxSupply: 500n,
    transferable: false,
    organiser,
  };
});

const collectionsOf = (sui: Sui) => sui.node.objectsOfType(`${sui.packageId}::collection::Collection`);
const coin = (id: string) => sui.node.ledger.objects.get(id)!;

/** A funded service: its one gas coin's id. */
function fundService(amount = ONE_SUI): string {
  for (const c of sui.node.ownedBy(sui.signer.address, SUI_COIN_TYPE)) sui.node.ledger.objects.delete(c.id);
  return sui.node.fund(sui.signer.address, amount);
}

describe("publishing a collection", () => {
  it("creates the shared Collection and the organiser's CollectionCap, from the very bytes signed", async () => {
    const gasCoin = fundService();
    sui.node.requests.length = 0;
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    // Two reads, and nothing executed yet.
    expect(sui.node.requests).toEqual(["GetEpoch", "ListOwnedObjects"]);
    expect(sui.node.ledger.transactions.size).toBe(0);

    const built = Transaction.from(prepared.bytes).getData();
    expect(built.sender).toBe(sui.signer.address);
    expect(built.gasData).toMatchObject({ price: String(REFERENCE_GAS_PRICE), budget: String(DEFAULT_PUBLISH_GAS_BUDGET) });
    expect(built.gasData.payment).toEqual([{ objectId: gasCoin, version: String(coin(gasCoin).version), digest: coin(gasCoin).digest }]);
    expect(await Transaction.from(prepared.bytes).getDigest()).toBe(prepared.digest);

    const outcome = await executePrepared(sui.client, prepared);
    expect(sui.node.requests).toEqual(["GetEpoch", "ListOwnedObjects", "ExecuteTransaction"]);
    expect(outcome).toMatchObject({ status: "success", digest: prepared.digest, passType: `${sui.packageId}::collection::EventPass` });
    expect(outcome.error).toBeUndefined();

    // The node executed these bytes under this digest.
    const recorded = sui.node.ledger.transactions.get(prepared.digest)!;
    expect(toBase64(recorded.transaction!.bcs!.value!)).toBe(prepared.bytes);

    const collection = sui.node.ledger.objects.get(outcome.collectionId!)!;
    expect(collection.type).toBe(normalizeStructTag(`${sui.packageId}::collection::Collection`));
    expect(collection.owner).toHaveProperty("sharedSince");
    expect(moveLayouts.Collection.parse(collection.contents)).toMatchObject({
      name: input.name, description: input.description, image_url: input.imageUrl, project_url: input.projectUrl,
      max_supply: "500", minted: "0", transferable: false,
    });
    const cap = sui.node.ledger.objects.get(outcome.capId!)!;
    expect(cap.type).toBe(normalizeStructTag(`${sui.packageId}::collection::CollectionCap`));
    expect(cap.owner).toEqual({ address: organiser });
    expect(moveLayouts.CollectionCap.parse(cap.contents).collection_id).toBe(outcome.collectionId);

    // The service paid: its coin holds one SUI less what the effects charged.
    expect(BigInt(outcome.gasCostMist)).toBeGreaterThan(0n);
    expect(coin(gasCoin).balance).toBe(ONE_SUI - BigInt(outcome.gasCostMist));
  });

  it("publishes without a supply limit as option none", async () => {
    fundService();
    const outcome = await executePrepared(sui.client,
      await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input: { ...input, maxSupply: null, transferable: true } }));
    const collection = sui.node.ledger.objects.get(outcome.collectionId!)!;
    expect(moveLayouts.Collection.parse(collection.contents)).toMatchObject({ max_supply: null, transferable: true });
  });

  it("executes a prepared publish once however often it is sent", async () => {
    fundService();
    const before = collectionsOf(sui).length;
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    const first = await executePrepared(sui.client, prepared);
    const second = await executePrepared(sui.client, prepared);
    expect(second).toEqual(first);
    expect(collectionsOf(sui).length).toBe(before + 1);
  });

  it("recovers a publish whose answer was lost: the retry reports the collection created the first time", async () => {
    fundService();
    const before = collectionsOf(sui).length;
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    sui.node.failNext({ kind: "lost_response" });
    await expect(executePrepared(sui.client, prepared)).rejects.toBeInstanceOf(SuiUnavailable);
    const created = collectionsOf(sui).filter((c) => c.previousTransaction === prepared.digest);
    expect(created).toHaveLength(1);

    const retried = await executePrepared(sui.client, prepared);
    expect(retried).toMatchObject({ status: "success", collectionId: created[0]!.id });
    expect(collectionsOf(sui).length).toBe(before + 1);
  });
});

describe("what the node refuses", () => {
  it("refuses a transaction signed by another key than its sender's", async () => {
    const gasCoin = fundService();
    const version = coin(gasCoin).version;
    const before = collectionsOf(sui).length;
    const tx = buildPublishTransaction({
      packageId: sui.packageId, sender: sui.signer.address, gasPrice: REFERENCE_GAS_PRICE, gasBudget: DEFAULT_PUBLISH_GAS_BUDGET,
      gasPayment: [{ objectId: gasCoin, version: String(version), digest: coin(gasCoin).digest }], input,
    });
    const bytes = await tx.build();
    const { signature } = await new Ed25519Keypair().signTransaction(bytes);
    const refused = executePrepared(sui.client, { bytes: toBase64(bytes), signature });
    await expect(refused).rejects.toBeInstanceOf(SuiRejected);
    await expect(refused).rejects.toThrow(/signature is not valid for sender/);
    expect(collectionsOf(sui).length).toBe(before);
    expect(coin(gasCoin).version).toBe(version);

    // The same bytes with the service's own signature go through: only the signature was wrong.
    const { signature: good } = await sui.signer.signTransaction(bytes);
    await expect(executePrepared(sui.client, { bytes: toBase64(bytes), signature: good })).resolves.toMatchObject({ status: "success" });
  });

  it("refuses gas paid with a coin the sender does not own", async () => {
    fundService();
    const other = new Ed25519Keypair();
    const othersCoin = sui.node.fund(other.toSuiAddress(), ONE_SUI);
    const stranger = new Ed25519Keypair();
    const tx = buildPublishTransaction({
      packageId: sui.packageId, sender: stranger.toSuiAddress(), gasPrice: REFERENCE_GAS_PRICE, gasBudget: DEFAULT_PUBLISH_GAS_BUDGET,
      gasPayment: [{ objectId: othersCoin, version: String(coin(othersCoin).version), digest: coin(othersCoin).digest }], input,
    });
    const bytes = await tx.build();
    const { signature } = await stranger.signTransaction(bytes);
    await expect(executePrepared(sui.client, { bytes: toBase64(bytes), signature })).rejects.toThrow(/not owned by the sender/);
  });

  async function signedByService(build: (tx: Transaction) => void): Promise<{ bytes: string; signature: string }> {
    const gasCoin = fundService();
    const tx = new Transaction();
    tx.setSender(sui.signer.address);
    tx.setGasPrice(REFERENCE_GAS_PRICE);
    tx.setGasBudget(DEFAULT_PUBLISH_GAS_BUDGET);
    tx.setGasPayment([{ objectId: gasCoin, version: String(coin(gasCoin).version), digest: coin(gasCoin).digest }]);
    build(tx);
    const bytes = await tx.build();
    return { bytes: toBase64(bytes), signature: (await sui.signer.signTransaction(bytes)).signature };
  }

  const goodArguments = (tx: Transaction) => [
    tx.pure.string("n"), tx.pure.string("d"), tx.pure.string("i"), tx.pure.string("p"),
    tx.pure.option("u64", 5n), tx.pure.bool(true), tx.pure.address(organiser),
  ];

  it("refuses create_collection of another package", async () => {
    const before = collectionsOf(sui).length;
    const prepared = await signedByService((tx) =>
      tx.moveCall({ target: `${randomAddress()}::collection::create_collection`, arguments: goodArguments(tx) }));
    await expect(executePrepared(sui.client, prepared)).rejects.toThrow(/unexpected move call target/);
    expect(collectionsOf(sui).length).toBe(before);
  });

  it("refuses any other function of the package, through the SDK's client itself", async () => {
    const prepared = await signedByService((tx) =>
      tx.moveCall({ target: `${sui.packageId}::collection::mint`, arguments: goodArguments(tx) }));
    const call = sui.client.executeTransaction({ transaction: fromBase64(prepared.bytes), signatures: [prepared.signature] });
    await expect(call).rejects.toBeInstanceOf(RpcError);
    await expect(call).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/collection::mint/) });
  });

  it("refuses arguments of the wrong BCS type", async () => {
    const before = collectionsOf(sui).length;
    const prepared = await signedByService((tx) => {
      const args = goodArguments(tx);
      args[4] = tx.pure.u64(5n); // max_supply must be an Option<u64>
      tx.moveCall({ target: `${sui.packageId}::collection::create_collection`, arguments: args });
    });
    await expect(executePrepared(sui.client, prepared)).rejects.toThrow(/argument 4 \(max_supply\)/);
    const missing = await signedByService((tx) =>
      tx.moveCall({ target: `${sui.packageId}::collection::create_collection`, arguments: goodArguments(tx).slice(0, 6) }));
    await expect(executePrepared(sui.client, missing)).rejects.toThrow(/takes 7 arguments, got 6/);
    expect(collectionsOf(sui).length).toBe(before);
  });

  it("pays a second prepared publish with another coin when told which coins are taken", async () => {
    const first = fundService();
    const second = sui.node.fund(sui.signer.address, ONE_SUI / 2n);
    const a = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    expect(a.gasCoin).toBe(first);
    const b = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input, avoidGasCoins: [a.gasCoin] });
    expect(b.gasCoin).toBe(second);
    await expect(executePrepared(sui.client, b)).resolves.toMatchObject({ status: "success" });
    await expect(executePrepared(sui.client, a)).resolves.toMatchObject({ status: "success" });
    await expect(preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input, avoidGasCoins: [first, second] }))
      .rejects.toBeInstanceOf(SuiUnfunded);
  });

  it("refuses a prepared publish whose gas coin another publish spent first", async () => {
    fundService();
    const first = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    const second = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input: { ...input, name: "Other" } });
    await executePrepared(sui.client, first);
    const stale = executePrepared(sui.client, second);
    await expect(stale).rejects.toBeInstanceOf(SuiRejected);
    await expect(stale).rejects.toThrow(/not available for consumption/);
  });
});

describe("failures", () => {
  it("reports a Move abort as a failed publish with its reason, gas charged and nothing created", async () => {
    const gasCoin = fundService();
    const before = collectionsOf(sui).length;
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    sui.node.failNext({ kind: "abort", abortCode: 7n });
    const outcome = await executePrepared(sui.client, prepared);
    expect(outcome).toMatchObject({ status: "failure", digest: prepared.digest, errorKind: "MoveAbort" });
    expect(outcome.error).toMatch(/abort code: 7/);
    expect(outcome.error).toMatch(/collection::create_collection/);
    expect(outcome.collectionId).toBeUndefined();
    expect(collectionsOf(sui).length).toBe(before);
    expect(coin(gasCoin).balance).toBe(ONE_SUI - BigInt(outcome.gasCostMist));
    // Sui records a failed transaction too: sending it again reports the same failure.
    await expect(executePrepared(sui.client, prepared)).resolves.toEqual(outcome);
  });

  it("reports running out of gas as a failed publish", async () => {
    fundService();
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    sui.node.failNext({ kind: "insufficient_gas" });
    const outcome = await executePrepared(sui.client, prepared);
    expect(outcome).toMatchObject({ status: "failure", error: "InsufficientGas", gasCostMist: String(DEFAULT_PUBLISH_GAS_BUDGET) });
  });

  it("turns a node that answers 503 into SuiUnavailable, before and at execution", async () => {
    fundService();
    sui.node.failNext({ kind: "transport" });
    await expect(preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input })).rejects.toBeInstanceOf(SuiUnavailable);

    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    sui.node.failNext({ kind: "transport", method: "ExecuteTransaction" });
    const failed = executePrepared(sui.client, prepared);
    await expect(failed).rejects.toBeInstanceOf(SuiUnavailable);
    await expect(failed).rejects.toMatchObject({ grpcCode: "UNAVAILABLE" });
    expect(sui.node.ledger.transactions.has(prepared.digest)).toBe(false);
    await expect(executePrepared(sui.client, prepared)).resolves.toMatchObject({ status: "success" });
  });

  it("gives up on a node that does not answer, as SuiUnavailable", async () => {
    fundService();
    const impatient = createSuiClient(sui.network, { timeoutMs: 300 });
    sui.node.failNext({ kind: "hang", method: "GetEpoch" });
    const started = Date.now();
    await expect(preparePublish(impatient, sui.signer, { packageId: sui.packageId, input })).rejects.toBeInstanceOf(SuiUnavailable);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("turns a node that is not there into SuiUnavailable", async () => {
    const closed = await startSui();
    await closed.node.close();
    await expect(closed.client.getReferenceGasPrice()).rejects.toThrow();
    await expect(preparePublish(closed.client, closed.signer, { packageId: closed.packageId, input })).rejects.toBeInstanceOf(SuiUnavailable);
  });

  it("is SuiUnfunded (a kind of SuiUnavailable) when no coin of the service holds the budget", async () => {
    for (const c of sui.node.ownedBy(sui.signer.address, SUI_COIN_TYPE)) sui.node.ledger.objects.delete(c.id);
    await expect(preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input })).rejects.toBeInstanceOf(SuiUnfunded);
    sui.node.fund(sui.signer.address, DEFAULT_PUBLISH_GAS_BUDGET - 1n);
    sui.node.fund(sui.signer.address, DEFAULT_PUBLISH_GAS_BUDGET - 1n);
    const unfunded = preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    await expect(unfunded).rejects.toBeInstanceOf(SuiUnfunded);
    await expect(unfunded).rejects.toBeInstanceOf(SuiUnavailable);
    // The richest coin pays, whatever the order the node lists them in.
    const rich = sui.node.fund(sui.signer.address, ONE_SUI);
    const prepared = await preparePublish(sui.client, sui.signer, { packageId: sui.packageId, input });
    expect(Transaction.from(prepared.bytes).getData().gasData.payment![0]!.objectId).toBe(rich);
  });

  it("is SuiUnavailable when the signer cannot sign, and says nothing of its error", async () => {
    fundService();
    const broken = { address: sui.signer.address, signTransaction: () => Promise.reject(new Error("kms: secret detail")) };
    const failed = preparePublish(sui.client, broken, { packageId: sui.packageId, input });
    await expect(failed).rejects.toBeInstanceOf(SuiUnavailable);
    await expect(failed).rejects.not.toThrow(/secret detail/);
  });
});

describe("the client per network", () => {
  it("is one client per network entry", () => {
    expect(suiClientFor(sui.network)).toBe(sui.client);
    const copy = suiNetworkConfigSchema.parse({ ...sui.network });
    expect(suiClientFor(copy)).not.toBe(sui.client);
  });
});
