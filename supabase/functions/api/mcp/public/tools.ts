// The public MCP endpoint's tools and the scopes each needs. Each is a thin adapter over one REST
// route called in-process as the person behind the OAuth grant (callRoute with the OAuth principal):
// REST's validation, SQL functions and RLS decide, so a tool answers exactly what REST answers that
// person. Most definitions and implementations are the MCP core's (api/mcp/backend); the ones only a
// person's assistant needs are here. A tool is listed, and callable, only when the grant holds every
// scope it needs.
//
// Nothing here moves money, signs or links a wallet or changes sponsorship settings: those tools
// (request_*) create a confirmation link (api/confirmations) that the person approves with their
// wallet in a browser, and get_confirmation_status polls it.
import { z } from "zod";
import { pathWith, type InProcessApp, type RouteCall } from "../../../_shared/mcp/call-route.ts";
import type { ToolAnnotations, ToolContext, ToolDefinition, ToolImplementations } from "../../../_shared/mcp/tools.ts";
import { pageSchema } from "../../../_shared/http/listing.ts";
import { ObjectId } from "../../../_shared/http/openapi.ts";
import { backendImplementations } from "../backend/implementations.ts";
import { backendTools, define, Deleted, paging, READ } from "../backend/tools.ts";
import { CryptoAddressSchema } from "../../identity/routes.ts";
import { HubSchema } from "../../hubs/routes.ts";
import { DepositSchema, SaveSettingsSchema, SettingsSchema, SponsorQuery, UsageSchema } from "../../sponsorship/routes.ts";
import { CONFIRMATION_STATUSES, DepositAction, WalletLinkAction } from "../../confirmations/actions.ts";

/** Creates a confirmation link only: nothing changes until the person approves it in their browser. */
const ASKS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** A sponsor wallet and its chain (a number here: tool arguments are JSON, not a query string). */
const sponsor = { ...SponsorQuery.shape, chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) };
const sponsorListing = { ...sponsor, ...paging };
const Sponsor = z.object(sponsor).strict();

export const ConfirmationSchema = z.object({
  confirmationId: ObjectId,
  kind: z.enum(["wallet_link", "sponsorship_settings", "sponsored_deposit"]),
  status: z.enum(CONFIRMATION_STATUSES).describe("pending until the person decides; approving while their approval runs; approved, " +
    "refused, failed (approved, but the REST route refused the action: see outcome.error; or approval_interrupted: " +
    "the approval did not finish within its 3-minute lease) or expired"),
  action: z.record(z.string(), z.unknown()).describe("Exactly what the link does when approved"),
  actionHash: z.string().describe("0x SHA-256 of the canonical JSON of { kind, action }; the sponsor's signature names it"),
  outcome: z.unknown().nullable().describe("Once decided: { result } (the REST route's answer), { error, httpStatus }, or { refused: true }"),
  expiresAt: z.string(),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
});
const CreatedConfirmationSchema = ConfirmationSchema.extend({
  url: z.string().describe("The single-use link to give the person (its secret is in the #fragment)"),
  instructions: z.string(),
});

const publicOnly = {
  join_hub: define({
    name: "join_hub", title: "Join a hub",
    description: "Joins a published public hub (POST /api/v3/hubs/{hubId}/members); joining again changes nothing.",
    input: z.object({ hubId: ObjectId }).strict(), output: HubSchema, annotations: { ...ASKS, idempotentHint: true },
  }),
  leave_hub: define({
    name: "leave_hub", title: "Leave a hub", description: "Leaves a hub you joined (DELETE /api/v3/hubs/{hubId}/members/me).",
    input: z.object({ hubId: ObjectId }).strict(), output: Deleted, annotations: { ...READ, readOnlyHint: false, destructiveHint: true },
  }),
  list_my_wallets: define({
    name: "list_my_wallets", title: "Your linked wallets", description: "The wallet addresses linked to your account (GET /api/v3/me/crypto-addresses).",
    input: z.object({}).strict(), output: z.object({ items: z.array(CryptoAddressSchema) }), annotations: READ,
  }),
  list_sponsorship_usage: define({
    name: "list_sponsorship_usage", title: "A sponsor's usage",
    description: "Sponsored transactions charged to one of your sponsor wallets, newest first (GET /api/v3/sponsorship/usage).",
    input: z.object(sponsorListing).strict(), output: pageSchema(UsageSchema, "SponsorshipUsagePage"), annotations: READ,
  }),
  list_sponsorship_deposits: define({
    name: "list_sponsorship_deposits", title: "A sponsor's deposits",
    description: "Verified deposits of one of your sponsor wallets, newest first (GET /api/v3/sponsorship/deposits).",
    input: z.object(sponsorListing).strict(), output: pageSchema(DepositSchema, "SponsorshipDepositPage"), annotations: READ,
  }),
  get_sponsorship_settings: define({
    name: "get_sponsorship_settings", title: "A sponsor's settings",
    description: "What one of your sponsor wallets pays for, and its limits (GET /api/v3/sponsorship/settings).",
    input: Sponsor, output: SettingsSchema, annotations: READ,
  }),
  request_wallet_link: define({
    name: "request_wallet_link", title: "Ask to link a wallet",
    description: "Does not link anything: creates a single-use link (15 minutes) for the person to open in a browser, where their " +
      "wallet signs a Sign-In with Ethereum message the service issues and the wallet is linked (POST /api/v3/me/crypto-addresses) " +
      "as them. Give them `url`; poll get_confirmation_status.",
    input: WalletLinkAction, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsorship_settings_change: define({
    name: "request_sponsorship_settings_change", title: "Ask to change a sponsor's settings",
    description: "Does not change anything: creates a single-use link (15 minutes) showing the person every setting now and after; " +
      "they approve with a signature of the sponsor wallet over a message naming the action's hash, then the settings are replaced " +
      "(POST /api/v3/sponsorship/settings) as them. The arguments are that route's body (fields left out return to their defaults). " +
      "Give them `url`; poll get_confirmation_status.",
    input: SaveSettingsSchema, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsored_deposit: define({
    name: "request_sponsored_deposit", title: "Ask to deposit into a sponsor's balance",
    description: "Does not move money: creates a single-use link (15 minutes) showing the person the amount, their sponsor wallet and the " +
      "chain's sponsorship vault; approving makes their wallet send the deposit transaction, which the service then verifies on-chain " +
      "and records (POST /api/v3/sponsorship/deposits/record) as them. Give them `url`; poll get_confirmation_status.",
    input: DepositAction, output: CreatedConfirmationSchema, annotations: { ...ASKS, openWorldHint: true },
  }),
  get_confirmation_status: define({
    name: "get_confirmation_status", title: "Status of a confirmation link",
    description: "pending, approving, approved, refused, failed or expired, with the outcome once decided. Only links this client made for you. " +
      "Listed with wallet:link or sponsorship:write.",
    input: z.object({ confirmationId: ObjectId }).strict(), output: ConfirmationSchema, annotations: READ,
  }),
};

/** The entries of `from` named `names`: the backend definitions and implementations reused here. */
const pick = <T extends object, K extends keyof T>(from: T, names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, from[name]])) as Pick<T, K>;

const BACKEND_NAMES = [
  "list_events", "get_event", "create_event", "update_event", "delete_event",
  "list_hubs", "get_hub", "create_hub", "update_hub", "delete_hub", "search_venues",
  "list_nft_collections", "get_nft_collection", "get_checkout_session", "list_checkout_webhook_deliveries",
  "get_sponsorship_balance",
] as const;

export const publicTools = { ...pick(backendTools, BACKEND_NAMES), ...publicOnly };
export type PublicTools = typeof publicTools;
export type PublicToolName = keyof PublicTools;

/**
 * The scopes each public tool needs: every one of them, except for get_confirmation_status, which any
 * one of the scopes that make confirmation links allows (it shows only links this client made).
 * Checkout: a person reads their own registered collections and the webhook log of their own
 * checkouts (RLS), and a session whose client secret they hold (like the hosted page); creating
 * sessions and retrying webhooks stay with API keys. Wallets are read and linked under wallet:link.
 */
export const PUBLIC_TOOL_SCOPES: Record<PublicToolName, readonly string[]> = {
  list_events: ["events:read"],
  get_event: ["events:read"],
  create_event: ["events:write"],
  update_event: ["events:write"],
  delete_event: ["events:write"],
  list_hubs: ["hubs:read"],
  get_hub: ["hubs:read"],
  create_hub: ["hubs:write"],
  update_hub: ["hubs:write"],
  delete_hub: ["hubs:write"],
  join_hub: ["hubs:write"],
  leave_hub: ["hubs:write"],
  search_venues: ["venues:read"],
  list_nft_collections: ["checkout:read"],
  get_nft_collection: ["checkout:read"],
  get_checkout_session: ["checkout:read"],
  list_checkout_webhook_deliveries: ["checkout:read"],
  get_sponsorship_balance: ["sponsorship:read"],
  list_sponsorship_usage: ["sponsorship:read"],
  list_sponsorship_deposits: ["sponsorship:read"],
  get_sponsorship_settings: ["sponsorship:read"],
  list_my_wallets: ["wallet:link"],
  request_wallet_link: ["wallet:link"],
  request_sponsorship_settings_change: ["sponsorship:write"],
  request_sponsored_deposit: ["sponsorship:write"],
  get_confirmation_status: ["wallet:link", "sponsorship:write"],
};

/** Tools that any one of their scopes allows. */
const ANY_ONE_SCOPE: ReadonlySet<PublicToolName> = new Set(["get_confirmation_status"]);

/** Whether `granted` allows the tool. */
export function allowsTool(name: PublicToolName, granted: readonly string[]): boolean {
  const needed = PUBLIC_TOOL_SCOPES[name];
  return ANY_ONE_SCOPE.has(name) ? needed.some((scope) => granted.includes(scope)) : needed.every((scope) => granted.includes(scope));
}

/** How a refusal names what the tool needs. */
export const scopeRuleText = (name: PublicToolName) => `The tool ${name}${ANY_ONE_SCOPE.has(name) ? " (any one of them)" : ""}`;

export function isPublicTool(name: string): name is PublicToolName {
  return Object.hasOwn(PUBLIC_TOOL_SCOPES, name);
}

/** The definitions the grant's scopes allow. */
export function toolsFor(scopes: readonly string[]): Partial<PublicTools> {
  const allowed: Partial<Record<PublicToolName, ToolDefinition>> = {};
  for (const name of Object.keys(PUBLIC_TOOL_SCOPES) as PublicToolName[]) {
    if (allowsTool(name, scopes)) allowed[name] = publicTools[name];
  }
  return allowed as Partial<PublicTools>;
}

const route = (context: ToolContext, call: RouteCall) => context.route(call);
const hubPath = (hubId: string, rest = "") => pathWith(`/api/v3/hubs/{hubId}${rest}`, { hubId });
const confirmation = (kind: string, action: unknown, context: ToolContext) =>
  route(context, { method: "POST", path: "/mcp/confirmations", body: { kind, action } });

export function publicImplementations(app: InProcessApp): ToolImplementations<PublicTools> {
  return {
    ...pick(backendImplementations(app), BACKEND_NAMES),
    join_hub: ({ hubId }, context) => route(context, { method: "POST", path: hubPath(hubId, "/members") }),
    leave_hub: ({ hubId }, context) => route(context, { method: "DELETE", path: hubPath(hubId, "/members/me") }),
    list_my_wallets: (_, context) => route(context, { method: "GET", path: "/api/v3/me/crypto-addresses" }),
    list_sponsorship_usage: (query, context) => route(context, { method: "GET", path: "/api/v3/sponsorship/usage", query }),
    list_sponsorship_deposits: (query, context) => route(context, { method: "GET", path: "/api/v3/sponsorship/deposits", query }),
    get_sponsorship_settings: (query, context) => route(context, { method: "GET", path: "/api/v3/sponsorship/settings", query }),
    request_wallet_link: (action, context) => confirmation("wallet_link", action, context),
    request_sponsorship_settings_change: (action, context) => confirmation("sponsorship_settings", action, context),
    request_sponsored_deposit: (action, context) => confirmation("sponsored_deposit", action, context),
    get_confirmation_status: ({ confirmationId }, context) =>
      route(context, { method: "GET", path: pathWith("/mcp/confirmations/{id}", { id: confirmationId }) }),
  };
}
