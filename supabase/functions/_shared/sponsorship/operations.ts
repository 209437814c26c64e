// What can be done with the sponsored-gas ledger, for every surface. Money moves only inside the
// `sponsorship` SQL functions, each one transaction under the sponsor's row lock; these operations
// read the chain where the rules ask for it (complete, deposits/record: between two transactions of
// their own) and map rows to the answers of schemas.ts. Addresses, hashes and call data go to SQL in
// lower case.
import type { z } from "@hono/zod-openapi";
import type { Fragment } from "postgres";
import { type Address, getAddress, type Hex } from "viem";
import { fromChain, publicClientFor } from "../chain/clients.ts";
import type { Config } from "../config.ts";
import type { Tx } from "../db/database.ts";
import type { Scoped } from "../db/scopes.ts";
import { serviceJobs } from "../db/service-jobs.ts";
import { ApiError } from "../http/errors.ts";
import { containsPattern, cursorValue, pageClauses } from "../db/paging.ts";
import { pagingOf, toPage } from "../http/listing.ts";
import { type Answer, ok, operation } from "../operations/operation.ts";
import { verifyDeposit, verifySponsoredTransaction } from "./chain-verification.ts";
import type {
  CancelSchema, CheckSchema, CompleteResultSchema, CompleteSchema, DepositSchema, PendingSchema, ProviderVerifySchema, RecordDepositSchema,
  RecordUsageSchema, SaveSettingsSchema, SettingsSchema, SponsorListQuery, SponsorQuery, UsageSchema,
} from "./schemas.ts";

type Sponsor = z.output<typeof SponsorQuery>;
type SponsorListing = z.output<typeof SponsorListQuery>;
type Deposit = z.infer<typeof DepositSchema>;
type Pending = z.infer<typeof PendingSchema>;

const lower = (value: string) => value.toLowerCase();
const sponsorOf = (input: { walletAddress: string; chainId: number }) => ({ chainId: input.chainId, wallet: lower(input.walletAddress) });
const iso = (date: Date | null) => date?.toISOString() ?? null;

/** 202: the transaction is not mined, or not confirmed enough, yet; the caller sends it again later. */
const pending = ({ code, message }: { code: string; message: string }): Answer<Pending> =>
  ok({ status: "pending" as const, reason: code as Pending["reason"], message }, 202);

/** 404 sponsor_not_found unless the caller linked the wallet on the chain (one statement of `tx`). */
async function requireOwnedWallet(tx: Tx, chainId: number, wallet: string): Promise<void> {
  const [row] = await tx<{ owns: boolean }[]>`select sponsorship.owns_wallet(${chainId}, ${wallet}) as owns`;
  if (!row?.owns) {
    throw new ApiError(404, "sponsor_not_found", `No sponsor wallet ${wallet} on chain ${chainId} is linked to you.`);
  }
}

const READ = ["sponsorship:read"] as const;
const WRITE = ["sponsorship:write"] as const;

// ------------------------------------------------------------------------------------------
// Reads
// ------------------------------------------------------------------------------------------

export const getBalance = operation({
  name: "sponsorship.balance",
  scopes: READ,
  async run({ db }, query: Sponsor) {
    const { chainId, wallet } = sponsorOf(query);
    const [row] = await db.statement((tx) => tx<{
      deposited: string; spent: string; held: string; available: string; active_reservations: bigint;
    }[]>`select deposited::text, spent::text, held::text, available::text, active_reservations
         from sponsorship.balance(${chainId}, ${wallet})`);
    return ok({
      walletAddress: getAddress(wallet),
      chainId,
      depositedWei: row!.deposited,
      spentWei: row!.spent,
      heldWei: row!.held,
      availableWei: row!.available,
      activeReservations: Number(row!.active_reservations),
    });
  },
});

/**
 * A page of the sponsor's append-only records (`table`, aliased `alias`), for its owner only. The
 * records are never updated, so updatedAt sorts as createdAt. `search` matches any of
 * `searchColumns` (stored lower case).
 */
async function sponsorRecordsPage<R extends { id: string; cursor_value: string }>(
  db: Scoped,
  query: SponsorListing,
  table: "usage" | "deposits",
  alias: string,
  columns: (tx: Tx) => Fragment,
  searchColumns: string[],
) {
  const { chainId, wallet } = sponsorOf(query);
  const paging = pagingOf(query);
  const rows = await db.transaction(async (tx) => {
    await requireOwnedWallet(tx, chainId, wallet);
    const { after, orderAndLimit } = pageClauses(tx, alias, paging);
    const pattern = query.search ? containsPattern(lower(query.search)) : null;
    const search = pattern
      ? tx`and (${searchColumns.map((column, i) => tx`${i ? tx`or` : tx``} ${tx(`${alias}.${column}`)}::text like ${pattern}`)})`
      : tx``;
    return tx<R[]>`
      select ${columns(tx)}, ${cursorValue(tx, alias, paging)}
      from (select x.*, x.created_at as updated_at from ${tx(`sponsorship.${table}`)} x
            join sponsorship.sponsors s on s.id = x.sponsor_id
            where s.chain_id = ${chainId} and s.wallet_address = ${wallet}) ${tx(alias)}
      where true ${after} ${search}
      ${orderAndLimit}`;
  });
  return { rows, paging };
}

interface UsageRow {
  id: string;
  chain_id: bigint;
  operation_type: z.infer<typeof UsageSchema>["operationType"];
  actor_address: string;
  mode: z.infer<typeof UsageSchema>["mode"];
  tx_hash: string;
  user_op_hash: string | null;
  amount: string;
  reservation_id: string | null;
  created_at: Date;
  cursor_value: string;
}

const toUsage = (row: Omit<UsageRow, "cursor_value">): z.infer<typeof UsageSchema> => ({
  id: row.id,
  chainId: Number(row.chain_id),
  operationType: row.operation_type,
  actorAddress: getAddress(row.actor_address),
  mode: row.mode,
  txHash: row.tx_hash,
  userOpHash: row.user_op_hash,
  amountWei: row.amount,
  reservationId: row.reservation_id,
  createdAt: row.created_at.toISOString(),
});

const usageColumns = (tx: Tx) =>
  tx`u.id::text as id, u.chain_id, u.operation_type, u.actor_address, u.mode, u.tx_hash, u.user_op_hash,
     u.amount::text as amount, u.reservation_id, u.created_at`;

export const listUsage = operation({
  name: "sponsorship.usage.list",
  scopes: READ,
  async run({ db }, query: SponsorListing) {
    const { rows, paging } = await sponsorRecordsPage<UsageRow>(db, query, "usage", "u", usageColumns,
      ["tx_hash", "actor_address", "operation_type"]);
    return ok(toPage(rows, paging, toUsage));
  },
});

interface DepositRow {
  id: string;
  chain_id: bigint;
  tx_hash: string;
  amount: string;
  from_address: string;
  to_address: string;
  block_number: bigint;
  created_at: Date;
  cursor_value: string;
}

const toDeposit = (row: Omit<DepositRow, "cursor_value">): Deposit => ({
  id: row.id,
  chainId: Number(row.chain_id),
  txHash: row.tx_hash,
  amountWei: row.amount,
  fromAddress: getAddress(row.from_address),
  toAddress: getAddress(row.to_address),
  blockNumber: String(row.block_number),
  createdAt: row.created_at.toISOString(),
});

const depositColumns = (tx: Tx) =>
  tx`d.id::text as id, d.chain_id, d.tx_hash, d.amount::text as amount, d.from_address, d.to_address, d.block_number, d.created_at`;

export const listDeposits = operation({
  name: "sponsorship.deposits.list",
  scopes: READ,
  async run({ db }, query: SponsorListing) {
    const { rows, paging } = await sponsorRecordsPage<DepositRow>(db, query, "deposits", "d", depositColumns, ["tx_hash"]);
    return ok(toPage(rows, paging, toDeposit));
  },
});

// ------------------------------------------------------------------------------------------
// Settings
// ------------------------------------------------------------------------------------------

interface SettingsRow {
  enabled_operations: string; // the enum array as Postgres text: {check_in,nft_mint}
  max_cost_per_tx: string | null;
  actor_daily_amount: string | null;
  actor_daily_count: number | null;
  sponsor_daily_amount: string | null;
  allowed_targets: string[];
  allowed_selectors: string[];
  active_from: Date | null;
  active_until: Date | null;
  updated_at: Date | null;
}

const settingsColumns = (tx: Tx) =>
  tx`enabled_operations::text, max_cost_per_tx::text, actor_daily_amount::text, actor_daily_count,
     sponsor_daily_amount::text, allowed_targets::text[], allowed_selectors, active_from, active_until, updated_at`;

function toSettings(chainId: number, wallet: string, row: SettingsRow | undefined): z.infer<typeof SettingsSchema> {
  const operations = row ? row.enabled_operations.replace(/^\{|\}$/g, "").split(",").filter(Boolean) : [];
  return {
    walletAddress: getAddress(wallet),
    chainId,
    enabledOperations: operations as z.infer<typeof SettingsSchema>["enabledOperations"],
    maxCostPerTxWei: row?.max_cost_per_tx ?? null,
    actorDailyAmountWei: row?.actor_daily_amount ?? null,
    actorDailyCount: row?.actor_daily_count ?? null,
    sponsorDailyAmountWei: row?.sponsor_daily_amount ?? null,
    allowedTargets: (row?.allowed_targets ?? []).map((a) => getAddress(a)),
    allowedSelectors: row?.allowed_selectors ?? [],
    activeFrom: iso(row?.active_from ?? null),
    activeUntil: iso(row?.active_until ?? null),
    updatedAt: iso(row?.updated_at ?? null),
  };
}

export const getSettings = operation({
  name: "sponsorship.settings.get",
  scopes: READ,
  async run({ db }, query: Sponsor) {
    const { chainId, wallet } = sponsorOf(query);
    const row = await db.transaction(async (tx) => {
      await requireOwnedWallet(tx, chainId, wallet);
      const [found] = await tx<SettingsRow[]>`
        select ${settingsColumns(tx)} from sponsorship.settings st
        join sponsorship.sponsors s on s.id = st.sponsor_id
        where s.chain_id = ${chainId} and s.wallet_address = ${wallet}`;
      return found;
    });
    return ok(toSettings(chainId, wallet, row));
  },
});

/** Replaces the settings; a confirmation link approved by the person runs it with exactly sponsorship:write. */
export const saveSettings = operation({
  name: "sponsorship.settings.save",
  scopes: WRITE,
  async run({ db }, body: z.output<typeof SaveSettingsSchema>) {
    const { chainId, wallet } = sponsorOf(body);
    const [row] = await db.statement((tx) => tx<SettingsRow[]>`
      select ${settingsColumns(tx)} from sponsorship.save_settings(
        ${chainId}, ${wallet}, ${body.enabledOperations}::sponsorship.operation_type[],
        ${body.maxCostPerTxWei}::numeric, ${body.actorDailyAmountWei}::numeric, ${body.actorDailyCount}::integer,
        ${body.sponsorDailyAmountWei}::numeric, ${body.allowedTargets.map(lower)}::text[], ${body.allowedSelectors.map(lower)}::text[],
        ${body.activeFrom}::timestamptz, ${body.activeUntil}::timestamptz)`);
    return ok(toSettings(chainId, wallet, row));
  },
});

// ------------------------------------------------------------------------------------------
// check, provider verify, complete, cancel
// ------------------------------------------------------------------------------------------

export const checkEligibility = operation({
  name: "sponsorship.check",
  async run({ db, config }, body: z.output<typeof CheckSchema>) {
    const { chainId, wallet } = sponsorOf(body);
    await db.takeRateLimit("sponsorship.check", config.SPONSORSHIP_RATE_LIMITS.check);
    const [row] = await db.statement((tx) => tx<{
      eligible: boolean; reason: string; reservation_id: string | null; expires_at: Date | null; available: string;
    }[]>`
      select eligible, reason, reservation_id, expires_at, available::text
      from sponsorship.check(${chainId}, ${wallet}, ${body.operationType}::sponsorship.operation_type, ${body.clientId},
                             ${lower(body.targetAddress)}, ${lower(body.callData)}, ${body.nativeValueWei}::numeric,
                             ${lower(body.actorAddress)}, ${body.smartAccountAddress ? lower(body.smartAccountAddress) : null},
                             ${body.maxCostWei}::numeric, null)`);
    return ok({
      eligible: row!.eligible,
      reason: row!.reason,
      reservationId: row!.reservation_id,
      expiresAt: iso(row!.expires_at),
      availableWei: row!.available,
    });
  },
});

/**
 * The provider's server verifier: called with the provider's shared secret, no person (an
 * anonymous principal), so it runs as service_jobs, a transaction of its own.
 */
export const verifyForProvider = operation({
  name: "sponsorship.provider.verify",
  ownTransactions: true,
  async run({ database }, { clientId, chainId, userOp }: z.output<typeof ProviderVerifySchema>) {
    const calls = userOp.data;
    const gasCost = BigInt(userOp.gasLimit) * BigInt(userOp.gasPrice);
    // A reservation is one call: approve a single target with its call data and value, nothing else.
    const refusal = !calls || calls.targets.length === 0 || calls.callDatas.length === 0
      ? "call_data_missing"
      : calls.targets.length !== 1 || calls.callDatas.length !== 1 || calls.values.length > 1 ? "batch_not_supported" : null;
    if (refusal || !calls) {
      await serviceJobs(database).transaction((tx) => tx`
        select sponsorship.record_verification_refusal(${clientId}, ${chainId}, ${lower(userOp.sender)}, ${gasCost.toString()}::numeric, ${refusal})`);
      return ok({ isAllowed: false, reason: refusal ?? "call_data_missing" });
    }
    const value = BigInt(calls.values[0] ?? 0);
    const [row] = await serviceJobs(database).transaction((tx) => tx<{ is_allowed: boolean; reason: string }[]>`
      select is_allowed, reason from sponsorship.provider_verify(
        ${clientId}, ${chainId}, ${lower(userOp.sender)}, ${lower(calls.targets[0]!)}, ${lower(calls.callDatas[0]!)},
        ${value.toString()}::numeric, ${gasCost.toString()}::numeric)`);
    return ok({ isAllowed: row!.is_allowed, reason: row!.reason });
  },
});

/** The chain of the caller's own reservation (404 for anyone else's), before any RPC call. */
async function chainOfReservation(db: Scoped, reservationId: string): Promise<number> {
  const [row] = await db.statement((tx) => tx<{ chain_id: bigint | null }[]>`
    select sponsorship.reservation_chain_id(${reservationId}) as chain_id`);
  if (row?.chain_id === null || row?.chain_id === undefined) throw new ApiError(404, "reservation_not_found", `Reservation ${reservationId} not found.`);
  return Number(row.chain_id);
}

/** Verifies the sponsored transaction on-chain between two statements, then charges it once. */
export const completeSponsored = operation({
  name: "sponsorship.provider.complete",
  ownTransactions: true,
  async run({ db, config }, body: z.output<typeof CompleteSchema>): Promise<Answer<z.infer<typeof CompleteResultSchema> | Pending>> {
    const chainId = await chainOfReservation(db, body.reservationId);
    const chain = config.EVM_CHAINS.find((entry) => entry.chainId === chainId);
    const client = publicClientFor(config, chainId);
    const actor = getAddress((body.actorAddress ?? body.ownerAddress)!);
    const verification = await fromChain(verifySponsoredTransaction(client, {
      mode: body.mode,
      chainId,
      txHash: lower(body.txHash) as Hex,
      targetAddress: getAddress(body.targetAddress),
      callData: lower(body.callData) as Hex,
      nativeValueWei: BigInt(body.nativeValueWei),
      actorAddress: actor,
      smartAccountAddress: body.smartAccountAddress ? getAddress(body.smartAccountAddress) : undefined,
      entryPointAddress: body.entryPointAddress ? getAddress(body.entryPointAddress) : undefined,
      userOpHash: body.userOpHash ? (lower(body.userOpHash) as Hex) : undefined,
    }, { confirmations: chain?.confirmations ?? 1, extraEntryPoints: (chain?.extraEntryPoints ?? []) as Address[] }));
    if (!verification.ok) {
      if (verification.pending) return pending(verification);
      throw new ApiError(400, verification.code, `The transaction is not the sponsored one: ${verification.message}.`);
    }
    const [row] = await db.statement((tx) => tx<{
      usage_id: bigint; amount: string; released: string; replayed: boolean;
    }[]>`
      select usage_id, amount::text, released::text, replayed
      from sponsorship.complete(${body.reservationId}, ${body.clientId}, ${lower(body.targetAddress)}, ${lower(body.callData)},
                                ${body.nativeValueWei}::numeric, ${body.mode}, ${lower(body.txHash)}, ${verification.userOpHash},
                                ${lower(verification.usageActor)}, ${verification.cost.toString()}::numeric,
                                ${body.smartAccountAddress ? lower(body.smartAccountAddress) : null})`);
    return ok({
      reservationId: body.reservationId,
      usageId: String(row!.usage_id),
      chargedWei: row!.amount,
      releasedWei: row!.released,
      replayed: row!.replayed,
    });
  },
});

export const cancelReservation = operation({
  name: "sponsorship.provider.cancel",
  async run({ db }, body: z.output<typeof CancelSchema>) {
    const [row] = await db.statement((tx) => tx<{ released: string }[]>`
      select released::text from sponsorship.cancel(${body.reservationId}, ${body.clientId}, ${lower(body.targetAddress)},
                                                    ${lower(body.callData)}, ${body.nativeValueWei}::numeric)`);
    return ok({ reservationId: body.reservationId, releasedWei: row!.released });
  },
});

// ------------------------------------------------------------------------------------------
// Deposits and trusted usage
// ------------------------------------------------------------------------------------------

/** Where sponsors send deposits on the chain (EVM_CHAINS' sponsorshipVault), or 400 sponsorship_vault_not_configured. */
export function sponsorshipVaultOf(config: Config, chainId: number): string {
  const vault = config.EVM_CHAINS.find((entry) => entry.chainId === chainId)?.sponsorshipVault;
  if (!vault) throw new ApiError(400, "sponsorship_vault_not_configured", `No sponsorship vault is configured for chain ${chainId}.`);
  return vault;
}

/**
 * Records a deposit once verified on-chain (between two transactions of its own); a confirmation
 * link approved by the person runs it with exactly sponsorship:write.
 */
export const recordDeposit = operation({
  name: "sponsorship.deposits.record",
  scopes: WRITE,
  ownTransactions: true,
  async run({ db, config }, body: z.output<typeof RecordDepositSchema>): Promise<Answer<Deposit | Pending>> {
    const { chainId, wallet } = sponsorOf(body);
    const txHash = lower(body.txHash) as Hex;
    const client = publicClientFor(config, chainId);
    const chain = config.EVM_CHAINS.find((entry) => entry.chainId === chainId);
    const vault = sponsorshipVaultOf(config, chainId);
    // The rate limit and the ownership are checked before the chain is called: RPC calls are not free.
    await db.statement((tx) => tx`select sponsorship.deposit_preflight(${chainId}, ${wallet}, ${config.SPONSORSHIP_RATE_LIMITS.depositsRecord}::integer)`);

    const deposit = await fromChain(verifyDeposit(client, {
      txHash,
      sponsor: getAddress(wallet),
      vault: getAddress(vault),
      confirmations: chain?.confirmations ?? 1,
    }));
    if (!deposit.ok) {
      if (deposit.pending) return pending(deposit);
      throw new ApiError(400, deposit.code, `The transaction is not a deposit of this sponsor: ${deposit.message}.`);
    }
    // Two statements: the record is read back after the function wrote it (a statement's snapshot
    // would not see its own function's insert).
    const { row, replayed } = await db.transaction(async (tx) => {
      const [recorded] = await tx<{ deposit_id: bigint; replayed: boolean }[]>`
        select deposit_id, replayed
        from sponsorship.record_deposit(${chainId}, ${wallet}, ${txHash}, ${deposit.amount.toString()}::numeric,
                                        ${lower(deposit.to)}, ${deposit.blockNumber.toString()}::bigint, null)`;
      const [read] = await tx<Omit<DepositRow, "cursor_value">[]>`
        select ${depositColumns(tx)} from sponsorship.deposits d where d.id = ${String(recorded!.deposit_id)}`;
      return { row: read!, replayed: recorded!.replayed };
    });
    return ok(toDeposit(row), replayed ? 200 : 201);
  },
});

/** Usage a trusted server reports (its API key needs sponsorship:write; REST also refuses browsers). */
export const recordUsage = operation({
  name: "sponsorship.usage.record",
  permission: "sponsorship:write",
  async run({ db, config }, body: z.output<typeof RecordUsageSchema>) {
    const { chainId, wallet } = sponsorOf(body);
    await db.takeRateLimit("sponsorship.usage.record", config.SPONSORSHIP_RATE_LIMITS.usageRecord);
    const { row, replayed } = await db.transaction(async (tx) => {
      const [recorded] = await tx<{ usage_id: bigint; replayed: boolean }[]>`
        select usage_id, replayed
        from sponsorship.record_usage(${chainId}, ${wallet}, ${body.operationType}::sponsorship.operation_type,
                                      ${lower(body.actorAddress)}, ${lower(body.txHash)}, ${body.amountWei}::numeric,
                                      null)`;
      const [read] = await tx<Omit<UsageRow, "cursor_value">[]>`
        select ${usageColumns(tx)} from sponsorship.usage u where u.id = ${String(recorded!.usage_id)}`;
      return { row: read!, replayed: recorded!.replayed };
    });
    return ok(toUsage(row), replayed ? 200 : 201);
  },
});
