// The public MCP endpoint's tools. Each runs its operation as the person behind the OAuth grant, so
// RLS and the operation's rules decide, exactly as for REST. Most definitions are the backend's
// (api/mcp/backend); the ones only a person's assistant needs are here. A tool is listed, and
// callable, only when the grant holds the scopes its operation declares.
//
// Nothing here moves money, signs or links a wallet or changes sponsorship settings: those tools
// (request_*) create a confirmation link (api/confirmations) that the person approves with their
// wallet in a browser, and get_confirmation_status polls it.
//
// A ticket leaves only as a link to the ticket page (get_my_ticket_link), which draws the QR code in
// the person's browser. At the door an assistant checks people in by reservation id alone: it has
// no camera or NFC reader, and a QR token or bracelet UID that reached it in text may have been
// put there by anyone, an event's description included.
import { z } from "zod";
import { buildToolServer, define, type ToolAnnotations, type ToolDefinition, type ToolSession } from "../../../_shared/mcp/tools.ts";
import { scopesAllow } from "../../../_shared/operations/operation.ts";
import { pageSchema } from "../../../_shared/http/listing.ts";
import { CreatedAt, ObjectId, Timestamp } from "../../../_shared/http/openapi.ts";
import { ADD, backendTools, Deleted, onChain, READ, reservationArgs } from "../backend/tools.ts";
import * as confirmations from "../../../_shared/confirmations/operations.ts";
import * as sponsorship from "../../../_shared/sponsorship/operations.ts";
import { CryptoAddressListSchema } from "../../../_shared/identity/schemas.ts";
import * as hubs from "../../../_shared/hubs/operations.ts";
import * as identity from "../../../_shared/identity/operations.ts";
import { HubSchema } from "../../../_shared/hubs/schemas.ts";
import { DepositSchema, SaveSettingsSchema, SettingsSchema, SponsorListQuery, SponsorQuery, UsageSchema } from "../../../_shared/sponsorship/schemas.ts";
import { CONFIRMATION_STATUSES, DepositAction, WalletLinkAction } from "../../../_shared/confirmations/actions.ts";
import * as checkin from "../../../_shared/checkin/operations.ts";
import { ScanDirection, ScanRequestSchema, ScanSchema } from "../../../_shared/checkin/schemas.ts";

/** Creates a confirmation link only: nothing changes until the person approves it in their browser. */
const ASKS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };


export const ConfirmationSchema = z.object({
  confirmationId: ObjectId.describe("The link's id: get_confirmation_status takes it"),
  kind: z.enum(["wallet_link", "sponsorship_settings", "sponsored_deposit"])
    .describe("What the link does: link a wallet, replace a sponsor's settings, or deposit into a sponsor's balance"),
  status: z.enum(CONFIRMATION_STATUSES).describe("pending until the person decides; approving while their approval runs; approved, " +
    "refused, failed (approved, but the REST route refused the action: see outcome.error; or approval_interrupted: " +
    "the approval did not finish within its 3-minute lease) or expired"),
  action: z.record(z.string(), z.unknown()).describe("Exactly what the link does when approved"),
  actionHash: z.string().describe("0x SHA-256 of the canonical JSON of { kind, action }; the sponsor's signature names it"),
  outcome: z.unknown().nullable().describe("Once decided: { result } (the REST route's answer), { error, httpStatus }, or { refused: true }"),
  expiresAt: Timestamp.describe("The link can no longer be approved after this instant (UTC): 15 minutes after it was made"),
  createdAt: CreatedAt,
  decidedAt: Timestamp.nullable().describe("When the person approved or refused it (UTC); null while undecided"),
}).describe("A confirmation link and where it stands");
const TicketLinkSchema = z.object({
  url: z.string().describe("The ticket page; its #fragment is the ticket, which the page draws as a QR code"),
  reservationId: ObjectId.describe("The reservation the ticket is for"),
  ticketVersion: z.number().int().describe("The ticket version the link shows; re-issuing the ticket makes the link scan as revoked"),
  expiresNote: z.string().describe("When the link stops admitting, in words for the person"),
}).describe("A link to the person's ticket");
const CreatedConfirmationSchema = ConfirmationSchema.extend({
  url: z.string().describe("The single-use link to give the person (its secret is in the #fragment)"),
  instructions: z.string().describe("How to hand the link to the person and what they will see, in words for you"),
}).describe("A new confirmation link for the person to approve");

const publicOnly = {
  join_hub: define({
    name: "join_hub", toolset: "hubs", operation: hubs.joinHub, title: "Join a hub",
    description: "Joins a published public hub (POST /api/v3/hubs/{hubId}/members); joining again changes nothing.",
    input: z.object({ hubId: ObjectId }).strict(), output: HubSchema, annotations: { ...ASKS, idempotentHint: true },
  }),
  leave_hub: define({
    name: "leave_hub", toolset: "hubs", operation: hubs.leaveHub, title: "Leave a hub", description: "Leaves a hub you joined (DELETE /api/v3/hubs/{hubId}/members/me).",
    input: z.object({ hubId: ObjectId }).strict(), output: Deleted, annotations: { ...READ, readOnlyHint: false, destructiveHint: true },
  }),
  list_my_wallets: define({
    name: "list_my_wallets", toolset: "identity", operation: identity.listCryptoAddresses, title: "Your linked wallets", description: "The wallet addresses linked to your account (GET /api/v3/me/crypto-addresses).",
    input: z.object({}).strict(), output: CryptoAddressListSchema, annotations: READ,
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
  request_wallet_link: define({
    name: "request_wallet_link", toolset: "identity", operation: confirmations.requestWalletLink, title: "Ask to link a wallet",
    description: "Does not link anything: creates a single-use link (15 minutes) for the person to open in a browser, where their " +
      "wallet signs a Sign-In with Ethereum message the service issues and the wallet is linked (POST /api/v3/me/crypto-addresses) " +
      "as them. Give them `url`; poll get_confirmation_status.",
    input: WalletLinkAction, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsorship_settings_change: define({
    name: "request_sponsorship_settings_change", toolset: "sponsorship", operation: confirmations.requestSponsorshipSettingsChange, title: "Ask to change a sponsor's settings",
    description: "Does not change anything: creates a single-use link (15 minutes) showing the person every setting now and after; " +
      "they approve with a signature of the sponsor wallet over a message naming the action's hash, then the settings are replaced " +
      "(POST /api/v3/sponsorship/settings) as them. The arguments are that route's body (fields left out return to their defaults). " +
      "Give them `url`; poll get_confirmation_status.",
    input: SaveSettingsSchema, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsored_deposit: define({
    name: "request_sponsored_deposit", toolset: "sponsorship", operation: confirmations.requestSponsoredDeposit, title: "Ask to deposit into a sponsor's balance",
    description: "Does not move money: creates a single-use link (15 minutes) showing the person the amount, their sponsor wallet and the " +
      "chain's sponsorship vault; approving makes their wallet send the deposit transaction, which the service then verifies on-chain " +
      "and records (POST /api/v3/sponsorship/deposits/record) as them. Give them `url`; poll get_confirmation_status.",
    input: DepositAction, output: CreatedConfirmationSchema, annotations: { ...ASKS, openWorldHint: true },
  }),
  get_my_ticket_link: define({
    name: "get_my_ticket_link", toolset: "reservations", operation: checkin.getTicketLink, title: "Show your ticket",
    description: "A link to a page that shows your ticket's QR code for your approved reservation, to open on the phone you " +
      "bring to the door. Give the person `url` exactly as it is: the part after # is the ticket, and nobody else should get it.",
    input: reservationArgs, output: TicketLinkSchema, annotations: READ,
  }),
  check_in_by_reservation: define({
    name: "check_in_by_reservation", toolset: "check_in", operation: checkin.checkInByReservation, title: "Check someone in by reservation",
    description: "Checks a person in (or out, direction exit) at an event you host or check people in at, by their reservation " +
      "id from list_event_reservations (POST /api/v3/events/{eventId}/check-ins, method manual). `result` says admitted or why " +
      "not. Send the same `nonce` when you retry a call. QR codes and bracelets are scanned by the door's devices, not here.",
    input: reservationArgs.extend({ direction: ScanDirection.default("entry"), nonce: ScanRequestSchema.shape.nonce.optional() }),
    output: ScanSchema, annotations: onChain(ADD),
  }),
  get_confirmation_status: define({
    name: "get_confirmation_status", toolset: "identity", operation: confirmations.getConfirmationStatus, title: "Status of a confirmation link",
    description: "pending, approving, approved, refused, failed or expired, with the outcome once decided. Only links this client made for you. " +
      "Listed with wallet:link or sponsorship:write.",
    input: z.object({ confirmationId: ObjectId }).strict(), output: ConfirmationSchema, annotations: READ,
  }),
};

const { list_events, get_event, create_event, update_event, delete_event, list_hubs, get_hub, create_hub, update_hub, delete_hub,
  search_venues, list_nft_collections, get_nft_collection, get_checkout_session, list_checkout_webhook_deliveries, get_sponsorship_balance,
  reserve_spot, cancel_reservation, list_my_reservations, get_reservation, get_event_access,
  list_event_reservations, approve_reservation, decline_reservation, undo_check_in, bind_bracelet, get_check_in_counts } = backendTools;

/** In the order tools/list shows them: the backend's definitions a person's assistant needs, and its own. */
export const publicTools = {
  list_events, get_event, create_event, update_event, delete_event,
  list_hubs, get_hub, create_hub, update_hub, delete_hub, join_hub: publicOnly.join_hub, leave_hub: publicOnly.leave_hub,
  search_venues, list_nft_collections, get_nft_collection, get_checkout_session, list_checkout_webhook_deliveries,
  get_sponsorship_balance, list_sponsorship_usage: publicOnly.list_sponsorship_usage, list_sponsorship_deposits: publicOnly.list_sponsorship_deposits,
  get_sponsorship_settings: publicOnly.get_sponsorship_settings, list_my_wallets: publicOnly.list_my_wallets,
  request_wallet_link: publicOnly.request_wallet_link, request_sponsorship_settings_change: publicOnly.request_sponsorship_settings_change,
  request_sponsored_deposit: publicOnly.request_sponsored_deposit, get_confirmation_status: publicOnly.get_confirmation_status,
  reserve_spot, cancel_reservation, list_my_reservations, get_reservation, get_my_ticket_link: publicOnly.get_my_ticket_link, get_event_access,
  list_event_reservations, approve_reservation, decline_reservation, check_in_by_reservation: publicOnly.check_in_by_reservation,
  undo_check_in, bind_bracelet, get_check_in_counts,
};
export type PublicTools = typeof publicTools;
export type PublicToolName = keyof PublicTools;

/** The tools that only make a confirmation link (nothing changes until the person approves it). */
export const CONFIRMATION_LINK_TOOLS: ReadonlySet<string> = new Set(
  Object.values(publicOnly).filter((tool) => tool.output === CreatedConfirmationSchema).map((tool) => tool.name),
);

/** The scopes each public tool needs: its operation's (all of them, or any one for get_confirmation_status). */
export const PUBLIC_TOOL_SCOPES = Object.fromEntries(
  Object.entries(publicTools).map(([name, tool]) => [name, tool.operation.scopes ?? []]),
) as Record<PublicToolName, readonly string[]>;

/** Whether `granted` allows the tool. */
export function allowsTool(name: PublicToolName, granted: readonly string[]): boolean {
  return scopesAllow(publicTools[name].operation, granted);
}

/** How a refusal names what the tool needs. */
export const scopeRuleText = (name: PublicToolName) => `The tool ${name}${publicTools[name].operation.anyScope ? " (any one of them)" : ""}`;

export function isPublicTool(name: string): name is PublicToolName {
  return Object.hasOwn(publicTools, name);
}

/** The definitions the grant's scopes allow. */
export function toolsFor(scopes: readonly string[]): Partial<PublicTools> {
  const allowed: Partial<Record<PublicToolName, ToolDefinition>> = {};
  for (const name of Object.keys(publicTools) as PublicToolName[]) {
    if (allowsTool(name, scopes)) allowed[name] = publicTools[name];
  }
  return allowed as Partial<PublicTools>;
}

/** How the public MCP server introduces itself (/mcp, and the assistant's in-memory link). */
export const PUBLIC_SERVER_INFO = {
  name: "eventhub-public",
  version: "3.0.0",
  instructions: "Tools for assistants acting for a person who signed in with their e-mail and chose what to allow: events, " +
    "hubs and venues they may see, their checkouts, sponsor wallets and wallets, their reservations, and the door of events " +
    "they host or check people in at. Linking a wallet or changing sponsorship settings " +
    "is never done by a tool: request_* tools return a single-use link the person approves with their wallet in a browser " +
    "(poll get_confirmation_status). A ticket is shown as a link (get_my_ticket_link) for the person to open at the door. " +
    "Which tools are listed depends on the scopes they granted; a tool outside them answers " +
    "HTTP 403 insufficient_scope naming the scopes to ask for.",
};

/** A new public MCP server for `session` with the tools `scopes` allow (one per request or call: never shared). */
export function publicToolServer(session: ToolSession, scopes: readonly string[]) {
  return buildToolServer(PUBLIC_SERVER_INFO, toolsFor(scopes), session);
}
