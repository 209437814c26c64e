// Sponsored check-in: an admission earns the attendee one token of the event owner's free
// collection, sent by the relayer and paid by a sponsor as operation `check_in`. The door's rules
// are the database's (migration 20261125000300_sponsored_check_in.sql): who may ask and whose
// sponsor wallet pays (checkin.hold_attendance_mint), one mint per reservation and collection
// (checkin.record_attendance_mint, in the transaction that records the signed relay). The relay
// itself takes the relays' one path: simulate, hold, sign and record, broadcast.
import type { z } from "@hono/zod-openapi";
import { encodeFunctionData, getAddress, keccak256, toHex } from "viem";
import { checkoutCollectionAbi } from "../collections/contract.ts";
import { ApiError } from "../http/errors.ts";
import { type OperationContext, operation } from "../operations/operation.ts";
import { readRelay, refuseUnlessFreeMint, relay, type RelayHold, signerOrRefuse } from "../relays/operations.ts";
import type { AttendanceMintSchema } from "../relays/schemas.ts";

interface AttendanceMintPlan {
  reservation_id: string;
  recipient: string;
  chain_id: bigint;
  collection_address: string;
  pricing: string;
  mint_price: string | null;
  payment_token: string | null;
  /** The mint asked for already (its relay not failed). */
  relay_id: string | null;
}

interface AttendanceMintInput {
  eventId: string;
  scanId: string;
  mint: z.output<typeof AttendanceMintSchema>;
}

/** What the door asks for, or its refusal (the database's rules, as the caller). */
async function planOf({ db }: OperationContext, { eventId, scanId, mint }: AttendanceMintInput): Promise<AttendanceMintPlan> {
  const [plan] = await db.statement((tx) => tx<AttendanceMintPlan[]>`
    select reservation_id, recipient, chain_id, collection_address, pricing, mint_price::text, payment_token, relay_id
    from checkin.attendance_mint_plan(${eventId}, ${scanId}, ${mint.collectionId})`);
  return plan!;
}

/** The mint's reference, one per reservation and collection: the collection mints it once, whatever the database says. */
const attendanceRef = (reservationId: string, collectionId: string) => keccak256(toHex(`attendance-mint:${reservationId}:${collectionId}`));

/**
 * Mints the attendance token of an admission: 202 with the new relay, or 200 with the one asked for
 * already (by anyone at the door).
 */
export const mintAttendance = operation({
  name: "checkin.attendance.mint",
  ownTransactions: true,
  async run(context, input: AttendanceMintInput) {
    const { eventId, scanId, mint } = input;
    signerOrRefuse(context.config);
    const plan = await planOf(context, input);
    if (plan.relay_id) return readRelay(context, plan.relay_id, mint.collectionId);
    refuseUnlessFreeMint(plan);
    const data = encodeFunctionData({
      abi: checkoutCollectionAbi, functionName: "mint", args: [getAddress(plan.recipient), attendanceRef(plan.reservation_id, mint.collectionId)],
    });
    const holdAtTheDoor: RelayHold = async (call, maxCost) => {
      const [held] = await context.db.statement((tx) => tx<{ reservation_id: string }[]>`
        select reservation_id from checkin.hold_attendance_mint(${eventId}, ${scanId}, ${mint.collectionId},
          ${mint.sponsorWalletAddress.toLowerCase()}, ${call.data.toLowerCase()}, ${maxCost.toString()}::numeric,
          ${context.config.SPONSORSHIP_RATE_LIMITS.check}::integer)`);
      return held!.reservation_id;
    };
    try {
      return await relay(context, {
        chainId: Number(plan.chain_id), to: getAddress(plan.collection_address), data, kind: "check_in", collectionId: mint.collectionId,
        maxCostWei: mint.maxCostWei,
      }, holdAtTheDoor, (tx, relayId) => tx`select checkin.record_attendance_mint(${relayId}, ${plan.reservation_id}, ${mint.collectionId}, ${scanId})`);
    } catch (error) {
      // A racing request's mint was recorded first (or already mined, so this one's call reverts):
      // that one is the answer.
      if (!(error instanceof ApiError && (error.code === "attendance_mint_exists" || error.code === "relay_would_revert"))) throw error;
      const { relay_id } = await planOf(context, input);
      if (!relay_id) throw error;
      return readRelay(context, relay_id, mint.collectionId);
    }
  },
});
