// Counting passes on Sui through the real SuiGrpcClient against the stand-in node: by collection
// object id (the pass's collection_id) and by Move type, across owners and pages, with the object
// ids counted and the checkpoint the node stamped on its answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SuiUnavailable } from "../../supabase/functions/_shared/sui/errors.ts";
import { countOwned, suiHoldingsReader } from "../../supabase/functions/_shared/sui/holdings.ts";
import { eventPassType } from "../../supabase/functions/_shared/sui/publish.ts";
import { randomAddress, type Sui, startSui } from "./sui-fixtures.ts";

let sui: Sui;
let passType: string;
const collectionA = randomAddress();
const collectionB = randomAddress();
const [alice, bob, carol] = [randomAddress(), randomAddress(), randomAddress()];
const TICKET = "0xfeed::nft::Ticket";
const passesOfA: Record<string, string[]> = { [alice]: [], [bob]: [] };

beforeAll(async () => {
  sui = await startSui();
  passType = eventPassType(sui.packageId);
  const { node } = sui;
  for (let i = 1n; i <= 7n; i++) passesOfA[alice]!.push(node.givePass(alice, { collectionId: collectionA, number: i }));
  for (let i = 1n; i <= 2n; i++) node.givePass(alice, { collectionId: collectionB, number: i });
  for (let i = 8n; i <= 10n; i++) passesOfA[bob]!.push(node.givePass(bob, { collectionId: collectionA, number: i }));
  // Same collection id, another package's EventPass type: not a pass of ours.
  node.givePass(bob, { collectionId: collectionA, packageId: randomAddress() });
  node.fund(bob, 1_000_000n);
  for (let i = 0; i < 3; i++) node.giveObject(alice, TICKET);
  for (let i = 0; i < 2; i++) node.giveObject(carol, TICKET);
  node.giveObject(carol, "0xfeed::nft::Other");
  node.giveObject(carol, "0xfeed::nft::Box<0xfeed::nft::Ticket>");
});
afterAll(() => sui?.node.close());

const listCalls = () => sui.node.requests.filter((m) => m === "ListOwnedObjects").length;

describe("counting passes", () => {
  it("counts a collection's passes by their collection_id, page by page, per owner", async () => {
    sui.node.requests.length = 0;
    const result = await countOwned(sui.client, { owners: [alice, bob, carol], collection: { objectId: collectionA }, passType, pageSize: 2 });
    expect(result).toEqual({
      count: 10,
      perOwner: { [alice]: 7, [bob]: 3, [carol]: 0 },
      objectIds: expect.any(Array),
      checkpoint: String(sui.node.ledger.checkpoint),
    });
    // The passes counted, by owner; another package's EventPass of bob's is not among them.
    expect(result.objectIds.slice(0, 7).sort()).toEqual([...passesOfA[alice]!].sort());
    expect(result.objectIds.slice(7).sort()).toEqual([...passesOfA[bob]!].sort());
    // The type filter leaves alice 9 passes (5 pages of 2), bob 3 (2 pages), carol none (1 page).
    expect(listCalls()).toBe(8);
    expect(sui.node.requests.every((m) => m === "ListOwnedObjects")).toBe(true);
  });

  it("counts another collection of the same package apart", async () => {
    const result = await countOwned(sui.client, { owners: [alice, bob], collection: { objectId: collectionB }, passType, pageSize: 2 });
    expect(result.perOwner).toEqual({ [alice]: 2, [bob]: 0 });
  });

  it("counts every object of a Move type, whatever its fields, and only that type", async () => {
    const result = await countOwned(sui.client, { owners: [alice, bob, carol], collection: { type: TICKET }, passType, pageSize: 1 });
    expect(result).toMatchObject({ count: 5, perOwner: { [alice]: 3, [bob]: 0, [carol]: 2 } });
    const passes = await countOwned(sui.client, { owners: [alice, bob], collection: { type: passType }, passType, pageSize: 4 });
    expect(passes.perOwner).toEqual({ [alice]: 9, [bob]: 3 });
  });

  it("follows the node's pages when it returns fewer objects than asked for", async () => {
    const small = await startSui({ maxPageSize: 4 });
    try {
      for (let i = 0; i < 9; i++) small.node.givePass(alice, { collectionId: collectionA });
      const result = await countOwned(small.client, { owners: [alice], collection: { objectId: collectionA }, passType: eventPassType(small.packageId) });
      expect(result.count).toBe(9);
      expect(small.node.requests.filter((m) => m === "ListOwnedObjects")).toHaveLength(3);
    } finally {
      await small.node.close();
    }
  });

  it("counts an owner named twice, or in another spelling, once", async () => {
    const result = await countOwned(sui.client, { owners: [alice, alice.toUpperCase().replace("0X", "0x")], collection: { objectId: collectionA }, passType });
    expect(result).toMatchObject({ count: 7, perOwner: { [alice]: 7 } });
  });

  it("refuses an owner that is not a Sui address before asking the node", async () => {
    sui.node.requests.length = 0;
    await expect(countOwned(sui.client, { owners: ["0xnot-an-address"], collection: { type: TICKET }, passType })).rejects.toThrow(RangeError);
    await expect(countOwned(sui.client, { owners: [], collection: { type: TICKET }, passType })).rejects.toThrow(RangeError);
    await expect(countOwned(sui.client, { owners: [alice], collection: { type: "0xfeed::nft" }, passType })).rejects.toThrow(RangeError);
    await expect(countOwned(sui.client, { owners: [alice], collection: { objectId: "0x1234" }, passType: "@org/pass::collection::EventPass" }))
      .rejects.toThrow(RangeError);
    expect(sui.node.requests).toEqual([]);
  });
});

describe("the checkpoint read at", () => {
  it("is the node's checkpoint height, and moves with the chain", async () => {
    const first = await countOwned(sui.client, { owners: [alice], collection: { type: TICKET }, passType });
    expect(first.checkpoint).toBe(String(sui.node.ledger.checkpoint));
    sui.node.advanceCheckpoint(5n);
    const later = await countOwned(sui.client, { owners: [alice], collection: { type: TICKET }, passType });
    expect(BigInt(later.checkpoint)).toBe(BigInt(first.checkpoint) + 5n);
  });

  it("is the lowest checkpoint among the pages when the chain moves during the read", async () => {
    const start = sui.node.ledger.checkpoint;
    sui.node.onRequest(() => sui.node.advanceCheckpoint());
    try {
      const result = await countOwned(sui.client, { owners: [alice, bob, carol], collection: { objectId: collectionA }, passType, pageSize: 2 });
      expect(sui.node.ledger.checkpoint).toBe(start + 8n);
      expect(result.checkpoint).toBe(String(start + 1n));
    } finally {
      sui.node.onRequest(null);
    }
  });
});

describe("the HoldingsReader", () => {
  it("answers count, per owner, checkpoint and the time of the read", async () => {
    const reader = suiHoldingsReader(sui.client, sui.packageId);
    const before = Date.now();
    const holdings = await reader.holdings([alice, bob], { objectId: collectionA });
    expect(holdings).toMatchObject({ count: 10, perOwner: { [alice]: 7, [bob]: 3 }, checkpoint: String(sui.node.ledger.checkpoint) });
    expect([...holdings.tokens!].sort()).toEqual([...passesOfA[alice]!, ...passesOfA[bob]!].sort());
    expect(Date.parse(holdings.readAt)).toBeGreaterThanOrEqual(before - 1);
  });

  it("is SuiUnavailable when the node answers 503", async () => {
    sui.node.failNext({ kind: "transport", method: "ListOwnedObjects" });
    await expect(suiHoldingsReader(sui.client, sui.packageId).holdings([alice], { type: TICKET })).rejects.toBeInstanceOf(SuiUnavailable);
  });
});
