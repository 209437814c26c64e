// The status read of a gasless relay settles its own relay whatever its nonce (migration
// 20261123001200_relays.sql: relays.pending_relay). It used to read the relayer's 200 lowest
// pending nonces (relays.pending) and look for the relay among them: with 200 relays pending below
// it, a mined relay stayed "submitted" on its status read. Here 200 relays go through the REST API
// first (all mined on anvil, none settled yet: no recovery pass runs), then one more: its status
// read finds its receipt and charges it, and leaves the 200 others to the recovery pass, which
// still takes them 200 at a time.
import type { Hex } from "viem";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RelayWorld, startRelayWorld } from "./relays-fixtures.ts";

let w: RelayWorld;
beforeAll(async () => {
  w = await startRelayWorld();
});
afterAll(() => w.close());

describe("the status read of one relay", () => {
  it("finds and settles a relay with 200 pending relays of the same relayer below its nonce", async () => {
    const sponsor = await w.venueSponsor({}, parseEther("10"));
    // Two callers share the 200 relays (the per-user rate limit on sponsorship checks is 120 a minute).
    const callers = [await w.actor(), await w.actor()];
    const start = BigInt(await w.chain.publicClient.getTransactionCount({ address: w.relayer.address, blockTag: "pending" }));
    const relayFor = (caller: Awaited<ReturnType<RelayWorld["actor"]>>, amount: bigint) =>
      w.relayVenue({ ...sponsor.sponsor, targetAddress: w.target, callData: w.checkInCall(caller.account.address, amount), actorAddress: caller.account.address }, caller.key);
    for (let batch = 0; batch < 10; batch++) {
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => relayFor(callers[i % 2]!, BigInt(batch * 20 + i + 1))));
      for (const response of responses) expect(response.status, await response.clone().text()).toBe(202);
    }

    const caller = await w.actor();
    const response = await relayFor(caller, 1n);
    expect(response.status, await response.clone().text()).toBe(202);
    const accepted = await response.json();
    expect(BigInt(accepted.nonce)).toBe(start + 200n);
    for (let i = 0; i < 200 && (await w.minedNonce()) < Number(start) + 201; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await w.minedNonce()).toBe(Number(start) + 201);
    // Every one is mined on anvil; in the table, 200 relays of this relayer are pending below it.
    const before = await w.relays();
    expect(before.filter((r) => r.status === "sent" && BigInt(r.nonce) < start + 200n)).toHaveLength(200);
    expect(before.find((r) => r.id === accepted.relayId)).toMatchObject({ status: "sent", usage_id: null });

    const read = await w.t.call(`/api/v3/crypto/evm/venue-gasless/${accepted.relayId}`, { key: caller.key });
    expect(read.status, await read.clone().text()).toBe(200);
    const receipt = await w.chain.publicClient.getTransactionReceipt({ hash: accepted.txHash as Hex });
    expect(await read.json()).toMatchObject({
      relayId: accepted.relayId, nonce: Number(start) + 200, status: "mined", txHash: accepted.txHash, attempts: 1, reverted: false,
      chargedWei: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), usageId: expect.stringMatching(/^\d+$/),
    });
    // Charged once; reading again replays nothing.
    const again = await (await w.t.call(`/api/v3/crypto/evm/venue-gasless/${accepted.relayId}`, { key: caller.key })).json();
    expect(again).toMatchObject({ status: "mined", usageId: expect.stringMatching(/^\d+$/) });
    const [usage] = await w.t.owner<{ n: string }[]>`
      select count(*)::text as n from sponsorship.usage u join relays.relays r on r.reservation_id = u.reservation_id where r.id = ${accepted.relayId}`;
    expect(usage).toEqual({ n: "1" });

    // The read settled its own relay only; the recovery pass settles the 200 others, 200 at a time as before.
    const after = await w.relays();
    expect(after.filter((r) => r.status === "sent")).toHaveLength(200);
    expect(await w.pass()).toMatchObject({ completed: 200, failed: 0 });
    expect((await w.relays()).every((r) => r.status === "mined")).toBe(true);
  }, 180_000);
});
