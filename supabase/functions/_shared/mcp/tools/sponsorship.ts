// MCP tools of the sponsorship domain (_shared/sponsorship).
import { z } from "zod";
import { define } from "../tools.ts";
import { pageSchema } from "../../http/listing.ts";
import {
  BalanceSchema, CancelResultSchema, CancelSchema, CheckResultSchema, CheckSchema, CompleteResultSchema, CompleteSchema,
  DepositSchema, PendingSchema, RecordDepositSchema, RecordUsageSchema, SettingsSchema, SponsorListQuery, SponsorQuery,
  UsageSchema,
} from "../../sponsorship/schemas.ts";
import { ADD, DELETE, onChain, READ } from "./common.ts";
import * as sponsorship from "../../sponsorship/operations.ts";

/** The sponsorship tools, by name. */
export const sponsorshipTools = {
  get_sponsorship_balance: define({
    name: "get_sponsorship_balance", toolset: "sponsorship", operation: sponsorship.getBalance, title: "A sponsor's balance",
    description: "Deposited, spent, held and available wei of one of your sponsor wallets (GET /api/v3/sponsorship/balance).",
    input: SponsorQuery, output: BalanceSchema, annotations: READ,
  }),
  check_sponsorship_eligibility: define({
    name: "check_sponsorship_eligibility", toolset: "sponsorship", operation: sponsorship.checkEligibility, title: "Check sponsorship eligibility",
    description: "Whether a sponsor pays for a call; when eligible, holds maxCostWei for 120 s (POST /api/v3/sponsorship/check).",
    input: CheckSchema, output: CheckResultSchema, annotations: ADD,
  }),
  complete_sponsored_transaction: define({
    name: "complete_sponsored_transaction", toolset: "sponsorship", operation: sponsorship.completeSponsored, title: "Complete a sponsored transaction",
    description: "Charges a verified sponsored transaction after verifying it on-chain (POST /api/v3/sponsorship/provider/complete).",
    input: CompleteSchema, output: z.union([CompleteResultSchema, PendingSchema]).describe("The charge, or pending while the transaction is not confirmed"),
    annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
  cancel_sponsored_transaction: define({
    name: "cancel_sponsored_transaction", toolset: "sponsorship", operation: sponsorship.cancelReservation, title: "Cancel a sponsorship reservation",
    description: "Releases a reservation the provider denied before broadcast (POST /api/v3/sponsorship/provider/cancel).",
    input: CancelSchema, output: CancelResultSchema, annotations: { ...DELETE, idempotentHint: false },
  }),
  record_sponsorship_deposit: define({
    name: "record_sponsorship_deposit", toolset: "sponsorship", operation: sponsorship.recordDeposit, title: "Record a sponsor deposit",
    description: "Records a deposit after verifying it on-chain (POST /api/v3/sponsorship/deposits/record).",
    input: RecordDepositSchema, output: z.union([DepositSchema, PendingSchema]).describe("The recorded deposit, or pending while the transaction is not confirmed"),
    annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
  record_sponsorship_usage: define({
    name: "record_sponsorship_usage", toolset: "sponsorship", operation: sponsorship.recordUsage, title: "Record sponsored usage",
    description: "Records usage against a sponsor, for trusted servers (POST /api/v3/sponsorship/usage/record, permission sponsorship:write).",
    input: RecordUsageSchema, output: UsageSchema, annotations: { ...ADD, idempotentHint: true },
  }),
  list_sponsorship_usage: define({
    name: "list_sponsorship_usage", toolset: "sponsorship", operation: sponsorship.listUsage, title: "A sponsor's usage",
    description: "Sponsored transactions charged to one of your sponsor wallets, newest first (GET /api/v3/sponsorship/usage).",
    input: SponsorListQuery, output: pageSchema(UsageSchema, "SponsorshipUsagePage"), annotations: READ,
  }),
  list_sponsorship_deposits: define({
    name: "list_sponsorship_deposits", toolset: "sponsorship", operation: sponsorship.listDeposits, title: "A sponsor's deposits",
    description: "Verified deposits of one of your sponsor wallets, newest first (GET /api/v3/sponsorship/deposits).",
    input: SponsorListQuery, output: pageSchema(DepositSchema, "SponsorshipDepositPage"), annotations: READ,
  }),
  get_sponsorship_settings: define({
    name: "get_sponsorship_settings", toolset: "sponsorship", operation: sponsorship.getSettings, title: "A sponsor's settings",
    description: "What one of your sponsor wallets pays for, and its limits (GET /api/v3/sponsorship/settings).",
    input: SponsorQuery, output: SettingsSchema, annotations: READ,
  }),
};
