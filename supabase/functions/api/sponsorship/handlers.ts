// The sponsored-gas ledger's routes (routes.ts). Money moves only inside the `sponsorship` SQL
// functions (supabase/migrations/20261123000800_sponsorship.sql), each one transaction under the
// sponsor's row lock; these handlers validate, read the chain where the rules ask for it, and map
// rows to the JSON the routes document. Addresses, hashes and call data go to SQL in lower case.
import type { RouteHandler, z } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex } from "viem";
import { scopeOf } from "../../_shared/auth/principal.ts";
import { fromChain, publicClientFor } from "../../_shared/chain/clients.ts";
import type { Config } from "../../_shared/config.ts";
import type { Fragment } from "postgres";
import type { Tx } from "../../_shared/db/database.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { containsPattern, cursorValue, pageClauses, pagingOf, toPage } from "../../_shared/http/listing.ts";
import { verifyDeposit, verifySponsoredTransaction } from "../../_shared/sponsorship/chain-verification.ts";
import { asServiceJobsOn } from "../../_shared/webhooks/dispatcher.ts";
import * as routes from "./routes.ts";
import { VERIFIER_SECRET_HEADER } from "./verifier-secret.ts";

const lower = (value: string) => value.toLowerCase();
const sponsorOf = (input: { walletAddress: string; chainId: number }) => ({ chainId: input.chainId, wallet: lower(input.walletAddress) });
const iso = (date: Date | null) => date?.toISOString() ?? null;

/** 404 sponsor_not_found unless the caller linked the wallet on the chain (one statement of `tx`). */
async function requireOwnedWallet(tx: Tx, chainId: number, wallet: string): Promise<void> {
  const [row] = await tx<{ owns: boolean }[]>`select sponsorship.owns_wallet(${chainId}, ${wallet}) as owns`;
  if (!row?.owns) {
    throw new ApiError(404, "sponsor_not_found", `No sponsor wallet ${wallet} on chain ${chainId} is linked to you.`);
  }
}

// ------------------------------------------------------------------------------------------
// Reads
// ------------------------------------------------------------------------------------------

export const getBalance: RouteHandler<typeof routes.getBalance, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const { chainId, wallet } = sponsorOf(query);
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{
    deposited: string; spent: string; held: string; available: string; active_reservations: bigint;
  }[]>`select deposited::text, spent::text, held::text, available::text, active_reservations
       from sponsorship.balance(${chainId}, ${wallet})`);
  return c.json({
    walletAddress: getAddress(wallet),
    chainId,
    depositedWei: row!.deposited,
    spentWei: row!.spent,
    heldWei: row!.held,
    availableWei: row!.available,
    activeReservations: Number(row!.active_reservations),
  }, 200);
};

/**
 * A page of the sponsor's append-only records (`table`, aliased `alias`), for its owner only. The
 * records are never updated, so updatedAt sorts as createdAt. `search` matches any of
 * `searchColumns` (stored lower case).
 */
async function sponsorRecordsPage<R extends { id: string; cursor_value: string }>(
  c: { get(key: "db"): AppEnv["Variables"]["db"]; get(key: "principal"): AppEnv["Variables"]["principal"] },
  query: { walletAddress: string; chainId: number; search?: string } & Parameters<typeof pagingOf>[0],
  table: "usage" | "deposits",
  alias: string,
  columns: (tx: Tx) => Fragment,
  searchColumns: string[],
) {
  const { chainId, wallet } = sponsorOf(query);
  const paging = pagingOf(query);
  const rows = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
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
  operation_type: z.infer<typeof routes.UsageSchema>["operationType"];
  actor_address: string;
  mode: z.infer<typeof routes.UsageSchema>["mode"];
  tx_hash: string;
  user_op_hash: string | null;
  amount: string;
  reservation_id: string | null;
  created_at: Date;
  cursor_value: string;
}

const toUsage = (row: Omit<UsageRow, "cursor_value">): z.infer<typeof routes.UsageSchema> => ({
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

export const listUsage: RouteHandler<typeof routes.listUsage, AppEnv> = async (c) => {
  const { rows, paging } = await sponsorRecordsPage<UsageRow>(c, c.req.valid("query"), "usage", "u", usageColumns,
    ["tx_hash", "actor_address", "operation_type"]);
  return c.json(toPage(rows, paging, toUsage), 200);
};

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

const toDeposit = (row: Omit<DepositRow, "cursor_value">): z.infer<typeof routes.DepositSchema> => ({
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

export const listDeposits: RouteHandler<typeof routes.listDeposits, AppEnv> = async (c) => {
  const { rows, paging } = await sponsorRecordsPage<DepositRow>(c, c.req.valid("query"), "deposits", "d", depositColumns, ["tx_hash"]);
  return c.json(toPage(rows, paging, toDeposit), 200);
};

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

function toSettings(chainId: number, wallet: string, row: SettingsRow | undefined): z.infer<typeof routes.SettingsSchema> {
  const operations = row ? row.enabled_operations.replace(/^\{|\}$/g, "").split(",").filter(Boolean) : [];
  return {
    walletAddress: getAddress(wallet),
    chainId,
    enabledOperations: operations as z.infer<typeof routes.SettingsSchema>["enabledOperations"],
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

export const getSettings: RouteHandler<typeof routes.getSettings, AppEnv> = async (c) => {
  const { chainId, wallet } = sponsorOf(c.req.valid("query"));
  const row = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    await requireOwnedWallet(tx, chainId, wallet);
    const [found] = await tx<SettingsRow[]>`
      select ${settingsColumns(tx)} from sponsorship.settings st
      join sponsorship.sponsors s on s.id = st.sponsor_id
      where s.chain_id = ${chainId} and s.wallet_address = ${wallet}`;
    return found;
  });
  return c.json(toSettings(chainId, wallet, row), 200);
};

export const saveSettings: RouteHandler<typeof routes.saveSettings, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const { chainId, wallet } = sponsorOf(body);
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<SettingsRow[]>`
    select ${settingsColumns(tx)} from sponsorship.save_settings(
      ${chainId}, ${wallet}, ${body.enabledOperations}::sponsorship.operation_type[],
      ${body.maxCostPerTxWei}::numeric, ${body.actorDailyAmountWei}::numeric, ${body.actorDailyCount}::integer,
      ${body.sponsorDailyAmountWei}::numeric, ${body.allowedTargets.map(lower)}::text[], ${body.allowedSelectors.map(lower)}::text[],
      ${body.activeFrom}::timestamptz, ${body.activeUntil}::timestamptz)`);
  return c.json(toSettings(chainId, wallet, row), 200);
};

// ------------------------------------------------------------------------------------------
// check, provider verify, complete, cancel
// ------------------------------------------------------------------------------------------

export const check: RouteHandler<typeof routes.check, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const { chainId, wallet } = sponsorOf(body);
  const limit = c.get("config").SPONSORSHIP_RATE_LIMITS.check;
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{
    eligible: boolean; reason: string; reservation_id: string | null; expires_at: Date | null; available: string;
  }[]>`
    select eligible, reason, reservation_id, expires_at, available::text
    from sponsorship.check(${chainId}, ${wallet}, ${body.operationType}::sponsorship.operation_type, ${body.clientId},
                           ${lower(body.targetAddress)}, ${lower(body.callData)}, ${body.nativeValueWei}::numeric,
                           ${lower(body.actorAddress)}, ${body.smartAccountAddress ? lower(body.smartAccountAddress) : null},
                           ${body.maxCostWei}::numeric, ${limit}::integer)`);
  return c.json({
    eligible: row!.eligible,
    reason: row!.reason,
    reservationId: row!.reservation_id,
    expiresAt: iso(row!.expires_at),
    availableWei: row!.available,
  }, 200);
};

export const providerVerify: RouteHandler<typeof routes.providerVerify, AppEnv> = async (c) => {
  const { clientId, chainId, userOp } = c.req.valid("json");
  const calls = userOp.data;
  const gasCost = BigInt(userOp.gasLimit) * BigInt(userOp.gasPrice);
  // A reservation is one call: approve a single target with its call data and value, nothing else.
  const refusal = !calls || calls.targets.length === 0 || calls.callDatas.length === 0
    ? "call_data_missing"
    : calls.targets.length !== 1 || calls.callDatas.length !== 1 || calls.values.length > 1 ? "batch_not_supported" : null;
  if (refusal || !calls) {
    await asServiceJobsOn(c.get("db"), (tx) => tx`
      select sponsorship.record_verification_refusal(${clientId}, ${chainId}, ${lower(userOp.sender)}, ${gasCost.toString()}::numeric, ${refusal})`);
    return c.json({ isAllowed: false, reason: refusal ?? "call_data_missing" }, 200);
  }
  const value = BigInt(calls.values[0] ?? 0);
  const [row] = await asServiceJobsOn(c.get("db"), (tx) => tx<{ is_allowed: boolean; reason: string }[]>`
    select is_allowed, reason from sponsorship.provider_verify(
      ${clientId}, ${chainId}, ${lower(userOp.sender)}, ${lower(calls.targets[0]!)}, ${lower(calls.callDatas[0]!)},
      ${value.toString()}::numeric, ${gasCost.toString()}::numeric)`);
  return c.json({ isAllowed: row!.is_allowed, reason: row!.reason }, 200);
};

/** The chain of the caller's own reservation (404 for anyone else's), before any RPC call. */
async function chainOfReservation(c: Parameters<RouteHandler<typeof routes.complete, AppEnv>>[0], reservationId: string): Promise<number> {
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ chain_id: bigint | null }[]>`
    select sponsorship.reservation_chain_id(${reservationId}) as chain_id`);
  if (row?.chain_id === null || row?.chain_id === undefined) throw new ApiError(404, "reservation_not_found", `Reservation ${reservationId} not found.`);
  return Number(row.chain_id);
}

export const complete: RouteHandler<typeof routes.complete, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const config = c.get("config");
  const chainId = await chainOfReservation(c, body.reservationId);
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
    if (verification.pending) {
      return c.json({ status: "pending" as const, reason: verification.code as "receipt_not_found", message: verification.message }, 202);
    }
    throw new ApiError(400, verification.code, `The transaction is not the sponsored one: ${verification.message}.`);
  }
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{
    usage_id: bigint; amount: string; released: string; replayed: boolean;
  }[]>`
    select usage_id, amount::text, released::text, replayed
    from sponsorship.complete(${body.reservationId}, ${body.clientId}, ${lower(body.targetAddress)}, ${lower(body.callData)},
                              ${body.nativeValueWei}::numeric, ${body.mode}, ${lower(body.txHash)}, ${verification.userOpHash},
                              ${lower(verification.usageActor)}, ${verification.cost.toString()}::numeric,
                              ${body.smartAccountAddress ? lower(body.smartAccountAddress) : null})`);
  return c.json({
    reservationId: body.reservationId,
    usageId: String(row!.usage_id),
    chargedWei: row!.amount,
    releasedWei: row!.released,
    replayed: row!.replayed,
  }, 200);
};

export const cancel: RouteHandler<typeof routes.cancel, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ released: string }[]>`
    select released::text from sponsorship.cancel(${body.reservationId}, ${body.clientId}, ${lower(body.targetAddress)},
                                                  ${lower(body.callData)}, ${body.nativeValueWei}::numeric)`);
  return c.json({ reservationId: body.reservationId, releasedWei: row!.released }, 200);
};

// ------------------------------------------------------------------------------------------
// Deposits and trusted usage
// ------------------------------------------------------------------------------------------

/** Where sponsors send deposits on the chain (EVM_CHAINS' sponsorshipVault), or 400 sponsorship_vault_not_configured. */
export function sponsorshipVaultOf(config: Config, chainId: number): string {
  const vault = config.EVM_CHAINS.find((entry) => entry.chainId === chainId)?.sponsorshipVault;
  if (!vault) throw new ApiError(400, "sponsorship_vault_not_configured", `No sponsorship vault is configured for chain ${chainId}.`);
  return vault;
}

export const recordDeposit: RouteHandler<typeof routes.recordDeposit, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const config = c.get("config");
  const { chainId, wallet } = sponsorOf(body);
  const txHash = lower(body.txHash) as Hex;
  const scope = scopeOf(c.get("principal"));
  const db = c.get("db");
  const client = publicClientFor(config, chainId);
  const chain = config.EVM_CHAINS.find((entry) => entry.chainId === chainId);
  const vault = sponsorshipVaultOf(config, chainId);
  // The rate limit and the ownership are checked before the chain is called: RPC calls are not free.
  await db.statement(scope, (tx) => tx`select sponsorship.deposit_preflight(${chainId}, ${wallet}, ${config.SPONSORSHIP_RATE_LIMITS.depositsRecord}::integer)`);

  const deposit = await fromChain(verifyDeposit(client, {
    txHash,
    sponsor: getAddress(wallet),
    vault: getAddress(vault),
    confirmations: chain?.confirmations ?? 1,
  }));
  if (!deposit.ok) {
    if (deposit.pending) return c.json({ status: "pending" as const, reason: deposit.code as "receipt_not_found", message: deposit.message }, 202);
    throw new ApiError(400, deposit.code, `The transaction is not a deposit of this sponsor: ${deposit.message}.`);
  }
  // Two statements: the record is read back after the function wrote it (a statement's snapshot
  // would not see its own function's insert).
  const { row, replayed } = await db.transaction(scope, async (tx) => {
    const [recorded] = await tx<{ deposit_id: bigint; replayed: boolean }[]>`
      select deposit_id, replayed
      from sponsorship.record_deposit(${chainId}, ${wallet}, ${txHash}, ${deposit.amount.toString()}::numeric,
                                      ${lower(deposit.to)}, ${deposit.blockNumber.toString()}::bigint, null)`;
    const [read] = await tx<Omit<DepositRow, "cursor_value">[]>`
      select ${depositColumns(tx)} from sponsorship.deposits d where d.id = ${String(recorded!.deposit_id)}`;
    return { row: read!, replayed: recorded!.replayed };
  });
  return c.json(toDeposit(row), replayed ? 200 : 201);
};

export const recordUsage: RouteHandler<typeof routes.recordUsage, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const { chainId, wallet } = sponsorOf(body);
  const { row, replayed } = await c.get("db").transaction(scopeOf(c.get("principal")), async (tx) => {
    const [recorded] = await tx<{ usage_id: bigint; replayed: boolean }[]>`
      select usage_id, replayed
      from sponsorship.record_usage(${chainId}, ${wallet}, ${body.operationType}::sponsorship.operation_type,
                                    ${lower(body.actorAddress)}, ${lower(body.txHash)}, ${body.amountWei}::numeric,
                                    ${c.get("config").SPONSORSHIP_RATE_LIMITS.usageRecord}::integer)`;
    const [read] = await tx<Omit<UsageRow, "cursor_value">[]>`
      select ${usageColumns(tx)} from sponsorship.usage u where u.id = ${String(recorded!.usage_id)}`;
    return { row: read!, replayed: recorded!.replayed };
  });
  return c.json(toUsage(row), replayed ? 200 : 201);
};

export const sponsorshipRouter = createRouter()
  .openapi(routes.getBalance, getBalance)
  .openapi(routes.listUsage, listUsage)
  .openapi(routes.listDeposits, listDeposits)
  .openapi(routes.getSettings, getSettings)
  .openapi(routes.saveSettings, saveSettings)
  .openapi(routes.check, check)
  .openapi(routes.providerVerify, providerVerify)
  .openapi(routes.complete, complete)
  .openapi(routes.cancel, cancel)
  .openapi(routes.recordDeposit, recordDeposit)
  .openapi(routes.recordUsage, recordUsage);

sponsorshipRouter.openAPIRegistry.registerComponent("securitySchemes", "SessionAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The check-in app's session token (Authorization: Bearer <SESSION_TOKEN>), as an alternative to x-api-key where SPEC 5.8 allows the session.",
});
sponsorshipRouter.openAPIRegistry.registerComponent("securitySchemes", "ProviderVerifierSecret", {
  type: "apiKey",
  in: "header",
  name: VERIFIER_SECRET_HEADER,
  description: "The shared secret configured at the sponsored-transaction provider (SPONSORSHIP_VERIFIER_SECRETS).",
});
