// What a confirmation link may do (migration 20261123001500_mcp_confirmations.sql): the kinds of
// action, the scope each needs, their canonical form and hashes, and the messages the person's wallet
// signs to approve them. No I/O here.
import { z } from "zod";
import { formatEther } from "viem";
import { createSiweMessage } from "viem/siwe";
import { keyedHash } from "../auth/mcp-oauth.ts";
import type { Config } from "../config.ts";
import { canonicalJson } from "../crypto/canonical-json.ts";
import { sha256 } from "../crypto/sha256.ts";
import { EvmAddress, TokenAmount } from "../chain/schemas.ts";
import { SaveSettingsSchema } from "../sponsorship/schemas.ts";

/** How long a link lives. */
export const CONFIRMATION_SECONDS = 15 * 60;

export const WalletLinkAction = z.object({
  chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The EVM chain the wallet is linked on"),
  address: EvmAddress.nullable().default(null).describe("Only this wallet may be linked; null: whichever wallet the person signs with"),
  connector: z.string().min(1).max(64).default("injected").describe("The wallet software's name, stored with the link"),
}).strict();

export const DepositAction = z.object({
  walletAddress: EvmAddress.describe("The sponsor wallet that sends the deposit: one of your linked addresses on chainId"),
  chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("The sponsor wallet's EVM chain id"),
  amountWei: TokenAmount.refine((v) => v !== "0", "must be more than 0").describe("What the wallet sends to the chain's sponsorship vault (wei, as a decimal string; more than 0)"),
}).strict();

export const KINDS = {
  wallet_link: { scope: "wallet:link", title: "Link a wallet to your account", schema: WalletLinkAction },
  sponsorship_settings: { scope: "sponsorship:write", title: "Change a sponsor wallet's settings", schema: SaveSettingsSchema },
  sponsored_deposit: { scope: "sponsorship:write", title: "Deposit into a sponsor wallet's balance", schema: DepositAction },
} as const;
export type ConfirmationKind = keyof typeof KINDS;
export const isKind = (kind: string): kind is ConfirmationKind => Object.hasOwn(KINDS, kind);

export const CONFIRMATION_STATUSES = ["pending", "approving", "approved", "refused", "failed", "expired"] as const;

/** SHA-256 of the canonical JSON of { kind, action }: what the link is bound to and what a signature names. */
export function actionHash(kind: string, action: unknown): Uint8Array {
  return sha256(canonicalJson({ kind, action }));
}

export const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString("hex")}`;

export interface BoundFields {
  userId: string;
  clientId: string;
  grantId: string;
  kind: string;
  actionHash: Uint8Array;
  tokenHash: Uint8Array;
  expiresAt: Date;
}

/** The row's binding: keyed with MCP_TOKEN_SECRET, so a row changed in the database no longer matches. */
export function bindingOf(config: Config, f: BoundFields): Uint8Array {
  return keyedHash(config, "mcp-confirmation",
    [f.userId, f.clientId, f.grantId, f.kind, hex(f.actionHash), hex(f.tokenHash), String(f.expiresAt.getTime())].join("|"));
}

/** The SIWE domain and URI of messages this service asks wallets to sign (the domain must be one REST accepts). */
export function siweOrigin(config: Config): { domain: string; uri: string } {
  const root = new URL(config.PUBLIC_API_ROOT);
  if (config.SIWE_DOMAINS.includes(root.host)) return { domain: root.host, uri: root.origin };
  const domain = config.SIWE_DOMAINS[0] ?? root.host;
  return { domain, uri: `https://${domain}` };
}

/** The statement of a wallet-link message: names the link, so a signature is for this confirmation. */
export const walletLinkStatement = (id: string) => `Link this wallet to your account (confirmation ${id}).`;

/** The wallet-link message the person signs: a REST-issued nonce, the REST link route verifies the rest. */
export function walletLinkMessage(config: Config, o: { id: string; address: `0x${string}`; chainId: number; nonce: string; now: Date }): string {
  const { domain, uri } = siweOrigin(config);
  return createSiweMessage({
    domain, uri, version: "1", address: o.address, chainId: o.chainId, nonce: o.nonce,
    statement: walletLinkStatement(o.id), issuedAt: o.now, expirationTime: new Date(o.now.getTime() + 10 * 60_000),
  });
}

/**
 * The sponsorship-settings approval the sponsor wallet signs: deterministic (from the row alone), so
 * the service rebuilds it and accepts exactly this text. It names the action's hash and the link.
 */
export function settingsMessage(config: Config, o: { id: string; walletAddress: `0x${string}`; chainId: number; actionHash: Uint8Array; createdAt: Date; expiresAt: Date }): string {
  const { domain, uri } = siweOrigin(config);
  return createSiweMessage({
    domain, uri, version: "1", address: o.walletAddress, chainId: o.chainId, nonce: o.id,
    statement: `Approve the sponsorship settings change ${hex(o.actionHash)} (confirmation ${o.id}).`,
    issuedAt: o.createdAt, expirationTime: o.expiresAt,
  });
}

const SETTINGS_LABELS: Record<string, string> = {
  enabledOperations: "Operations paid for",
  maxCostPerTxWei: "Max cost per transaction",
  actorDailyAmountWei: "Amount per actor and day",
  actorDailyCount: "Transactions per actor and day",
  sponsorDailyAmountWei: "Whole sponsor per day",
  allowedTargets: "Allowed contracts",
  allowedSelectors: "Allowed functions",
  activeFrom: "Active from",
  activeUntil: "Active until",
};

const weiText = (wei: string) => `${wei} wei (${formatEther(BigInt(wei))} ETH)`;

function shown(field: string, value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.join(", ") : field === "enabledOperations" ? "none" : "any";
  if (value === null || value === undefined) return field.startsWith("active") ? "not set" : "no limit";
  if (field.endsWith("Wei")) return weiText(value as string);
  return String(value);
}

export interface DisplayRow {
  label: string;
  after: string;
  before?: string;
  changed?: boolean;
}

/** What the page shows: every field of the action, and for settings the current value beside it. */
export function displayRows(kind: ConfirmationKind, action: Record<string, unknown>, current?: Record<string, unknown>): DisplayRow[] {
  if (kind === "wallet_link") {
    return [
      { label: "Chain", after: String(action.chainId) },
      { label: "Wallet", after: action.address ? String(action.address) : "the wallet you sign with" },
      { label: "Connector", after: String(action.connector) },
    ];
  }
  if (kind === "sponsored_deposit") {
    const available = current?.availableWei as string | undefined;
    return [
      { label: "From: sponsor wallet", after: String(action.walletAddress) },
      { label: "To: sponsorship vault", after: String(action.vaultAddress) },
      { label: "Chain", after: String(action.chainId) },
      { label: "Amount sent", after: weiText(String(action.amountWei)) },
      ...(available === undefined ? [] : [{
        label: "Available sponsorship balance", before: weiText(available), after: weiText((BigInt(available) + BigInt(String(action.amountWei))).toString()), changed: true,
      }]),
    ];
  }
  const rows: DisplayRow[] = [
    { label: "Sponsor wallet", after: String(action.walletAddress) },
    { label: "Chain", after: String(action.chainId) },
  ];
  for (const [field, label] of Object.entries(SETTINGS_LABELS)) {
    const after = shown(field, action[field]);
    const before = current ? shown(field, current[field]) : undefined;
    rows.push({ label, after, before, changed: before !== undefined && before !== after });
  }
  return rows;
}
