// Sponsored check-in on anvil through the REST API: a host with a sponsor enabling `check_in`, an
// event and its free collection; an attendee reserves and the host checks them in by hand; the
// attendance mint is relayed, mined, owned by the attendee on chain and charged to the ledger as
// check_in usage against them; asking again answers the same relay. A checker with the app's session
// token mints with the host's sponsor, never with a third party's. Refused: a scan that did not
// admit or was undone, someone outside the door, an attendee without a wallet.
import { type Address, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployCollection } from "../../scripts/lib/contracts.ts";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { type RelayWorld, startRelayWorld } from "../relays/relays-fixtures.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { nonce } from "./checkin-fixtures.ts";

const nftAbi = parseAbi(["function balanceOf(address owner) view returns (uint256)", "function ownerOf(uint256 tokenId) view returns (address)"]);

let w: RelayWorld;
let host: { user: UserWithKey; sponsor: { walletAddress: Address; chainId: number } };
let collection: { id: string; address: Address };
let eventId: string;
let checker: UserWithKey;

type Auth = { key: string } | { token: string };
const headersOf = (auth: Auth) => ("key" in auth ? { key: auth.key } : { headers: { authorization: `Bearer ${auth.token}` } });

const reserve = async (attendee: UserWithKey) => {
  const response = await w.t.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: attendee.key });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()).id as string;
};

/** A manual check-in at the door; the recorded scan. */
const checkIn = async (reservationId: string, auth: Auth, direction = "entry") => {
  const response = await w.t.call(`/api/v3/events/${eventId}/check-ins`, {
    method: "POST", ...headersOf(auth), json: { method: "manual", reservationId, direction, deviceId: "door-1", nonce: nonce() },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return await response.json() as { id: string; result: string };
};

const attendanceMint = (scanId: string, auth: Auth, sponsorWalletAddress: string = host.sponsor.walletAddress) =>
  w.t.call(`/api/v3/events/${eventId}/check-ins/${scanId}/attendance-mint`, {
    method: "POST", ...headersOf(auth), json: { collectionId: collection.id, sponsorWalletAddress },
  });

const balanceOf = (owner: Address) =>
  w.chain.publicClient.readContract({ address: collection.address, abi: nftAbi, functionName: "balanceOf", args: [owner] });

beforeAll(async () => {
  w = await startRelayWorld();
  const hostAccount = await w.newAccount();
  host = await w.fundedSponsor(hostAccount, { enabledOperations: ["check_in"] });
  const address = await deployCollection(w.chain.wallet(w.anvil.accounts[0]!), {
    name: "Attended", symbol: "POAP", owner: hostAccount.address, pricing: "static", staticPrice: 0n,
  });
  const registered = await w.t.call("/api/v3/nft-collection", {
    method: "POST", key: host.user.key, json: { chainId: w.anvil.chainId, address, pricing: "static", mintPrice: "0", paymentToken: null },
  });
  expect(registered.status, await registered.clone().text()).toBe(201);
  collection = { id: (await registered.json()).id, address };
  eventId = await createEvent(w.t, host.user.key);
  checker = await w.t.userWithKey();
  const added = await w.t.call(`/api/v3/events/${eventId}/staff`, { method: "POST", key: host.user.key, json: { userId: checker.id } });
  expect(added.status, await added.clone().text()).toBe(201);
});
afterAll(() => w.close());

describe("a sponsored check-in", () => {
  it("mints the attendance token to the admitted attendee, charged once to the host's sponsor as check_in; asking again answers the same relay", async () => {
    const attendee = await w.actor();
    const scan = await checkIn(await reserve(attendee.user), { key: host.user.key });
    expect(scan.result).toBe("admitted");
    const expectedMined = (await w.minedNonce()) + 1;

    const response = await attendanceMint(scan.id, { key: host.user.key });
    expect(response.status, await response.clone().text()).toBe(202);
    const accepted = await response.json();
    expect(accepted).toMatchObject({ relayId: expect.any(String), status: "submitted", chainId: w.anvil.chainId, relayerAddress: w.relayer.address });
    await w.settle(expectedMined);
    expect(await balanceOf(attendee.account.address)).toBe(1n);
    const [minted] = await w.chain.publicClient.getContractEvents({
      address: collection.address, abi: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)"]),
      eventName: "Transfer", args: { to: attendee.account.address }, fromBlock: 0n,
    });
    expect(await w.chain.publicClient.readContract({ address: collection.address, abi: nftAbi, functionName: "ownerOf", args: [minted!.args.tokenId!] }))
      .toBe(attendee.account.address);

    const usage = (await (await w.get("usage", host.sponsor, { key: host.user.key })).json()).items;
    const [relayRow] = await w.t.owner<{ usage_id: string; cost: string }[]>`select usage_id::text, cost::text from relays.relays where id = ${accepted.relayId}`;
    expect(usage).toEqual([expect.objectContaining({
      id: relayRow!.usage_id, operationType: "check_in", mode: "relayed", actorAddress: attendee.account.address, amountWei: relayRow!.cost,
      reservationId: accepted.reservationId,
    })]);
    const balance = await (await w.get("balance", host.sponsor, { key: host.user.key })).json();
    expect(balance).toMatchObject({ spentWei: relayRow!.cost, heldWei: "0" });

    // Again, by the checker this time: the same relay, mined, nothing new signed or charged.
    const again = await attendanceMint(scan.id, { key: checker.key });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await again.json()).toMatchObject({
      relayId: accepted.relayId, kind: "check_in", collectionId: collection.id, status: "mined", reverted: false, chargedWei: relayRow!.cost,
    });
    expect((await w.relays()).filter((r) => r.reservation_id === accepted.reservationId)).toHaveLength(1);
    expect((await (await w.get("usage", host.sponsor, { key: host.user.key })).json()).items).toHaveLength(1);
    // The collection's status read shows it as a check-in relay.
    const read = await w.t.call(`/api/v3/nft-collection/${collection.id}/gasless/${accepted.relayId}`, { key: host.user.key });
    expect(read.status, await read.clone().text()).toBe(200);
    expect(await read.json()).toMatchObject({ relayId: accepted.relayId, kind: "check_in", collectionId: collection.id, status: "mined" });
    expect(await balanceOf(attendee.account.address)).toBe(1n);
  });

  it("two requests at once for one admission: one relay, one token; the other answers it", async () => {
    const attendee = await w.actor();
    const scan = await checkIn(await reserve(attendee.user), { key: checker.key });
    const expectedMined = (await w.minedNonce()) + 1;
    const responses = await Promise.all([attendanceMint(scan.id, { key: checker.key }), attendanceMint(scan.id, { key: host.user.key })]);
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status).sort(), JSON.stringify(bodies)).toEqual([200, 202]);
    expect(bodies[0].relayId).toBe(bodies[1].relayId);
    await w.settle(expectedMined);
    expect(await balanceOf(attendee.account.address)).toBe(1n);
    const mints = await w.t.owner`select relay_id from checkin.attendance_mints where scan_id = ${scan.id}`;
    expect(mints).toEqual([{ relay_id: bodies[0].relayId }]);
    // The other request's hold, if it took one, was released at once.
    expect(await (await w.get("balance", host.sponsor, { key: host.user.key })).json()).toMatchObject({ heldWei: "0" });
  });

  it("works with the check-in app's session token: a checker spends the host's sponsor at the host's door, never a third party's", async () => {
    const attendee = await w.actor();
    const token = await w.sessionToken(checker);
    const scan = await checkIn(await reserve(attendee.user), { token });
    expect(scan.result).toBe("admitted");

    const third = await w.fundedSponsor(await w.newAccount(), { enabledOperations: ["check_in"] });
    await expectErrorBody(await attendanceMint(scan.id, { token }, third.sponsor.walletAddress), 403, "sponsor_not_event_owners");

    const expectedMined = (await w.minedNonce()) + 1;
    const response = await attendanceMint(scan.id, { token });
    expect(response.status, await response.clone().text()).toBe(202);
    const { relayId } = await response.json();
    await w.settle(expectedMined);
    expect(await balanceOf(attendee.account.address)).toBe(1n);
    const read = await w.t.call(`/api/v3/nft-collection/${collection.id}/gasless/${relayId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await read.json()).toMatchObject({ relayId, kind: "check_in", status: "mined" });
    const [usage] = await w.t.owner<{ operation_type: string; requested_by: string }[]>`
      select u.operation_type::text, r.requested_by from sponsorship.usage u join sponsorship.reservations r on r.id = u.reservation_id
      join relays.relays x on x.reservation_id = r.id where x.id = ${relayId}`;
    expect(usage).toEqual({ operation_type: "check_in", requested_by: checker.id });
    expect(await (await w.get("balance", third.sponsor, { key: third.user.key })).json()).toMatchObject({ spentWei: "0", heldWei: "0" });
  });
});

describe("refused before anything is signed", () => {
  it("a scan that did not admit, an undone admission, someone outside the door, an attendee without a wallet", async () => {
    const before = { relays: (await w.relays()).length, next: await w.nextNonce() };
    const attendee = await w.actor();
    const reservationId = await reserve(attendee.user);
    const admitted = await checkIn(reservationId, { key: checker.key });
    const refused = await checkIn(reservationId, { key: checker.key });
    expect(refused.result).toBe("already_inside");
    await expectErrorBody(await attendanceMint(refused.id, { key: checker.key }), 409, "scan_not_admitted");

    const undo = await w.t.call(`/api/v3/events/${eventId}/check-ins/${admitted.id}/undo`, { method: "POST", key: checker.key });
    expect(undo.status, await undo.clone().text()).toBe(200);
    await expectErrorBody(await attendanceMint(admitted.id, { key: host.user.key }), 409, "scan_not_admitted");

    const readmitted = await checkIn(reservationId, { key: checker.key });
    expect(readmitted.result).toBe("admitted");
    const stranger = await w.actor();
    await expectErrorBody(await attendanceMint(readmitted.id, { key: stranger.key }), 403, "not_event_staff");
    await expectErrorBody(await attendanceMint(readmitted.id, { key: stranger.key }, stranger.account.address), 403, "not_event_staff");
    await expectErrorBody(await attendanceMint(readmitted.id, { token: await w.sessionToken(attendee.user) }), 403, "not_event_staff");

    const walletless = await w.t.userWithKey();
    const walletlessScan = await checkIn(await reserve(walletless), { key: checker.key });
    await expectErrorBody(await attendanceMint(walletlessScan.id, { key: checker.key }), 409, "attendee_has_no_wallet");

    expect((await w.relays()).length).toBe(before.relays);
    expect(await w.nextNonce()).toBe(before.next);
    expect(await balanceOf(attendee.account.address)).toBe(0n);
    expect(await (await w.get("balance", host.sponsor, { key: host.user.key })).json()).toMatchObject({ heldWei: "0" });
  });
});
