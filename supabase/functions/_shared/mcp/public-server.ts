// The public MCP tool server: the tools a person's assistant may use, picked from the domains'
// catalogs (tools/), each running its operation as the person behind the OAuth grant, so RLS and the
// operation's rules decide, exactly as for REST. A tool is listed, and callable, only when the grant
// holds the scopes its operation declares. Served at /mcp (api/mcp/public) and linked in memory to
// the assistant (chat-with-assistant) and discover-mcp-capabilities.
import { scopesAllow } from "../operations/operation.ts";
import { buildToolServer, type ToolDefinition, type ToolSession } from "./tools.ts";
import { identityTools } from "./tools/identity.ts";
import { eventTools } from "./tools/events.ts";
import { hubTools } from "./tools/hubs.ts";
import { venueTools } from "./tools/venues.ts";
import { collectionTools } from "./tools/collections.ts";
import { checkoutTools } from "./tools/checkout.ts";
import { sponsorshipTools } from "./tools/sponsorship.ts";
import { checkinTools } from "./tools/checkin.ts";
import { confirmationTools } from "./tools/confirmations.ts";

export { CONFIRMATION_LINK_TOOLS } from "./tools/confirmations.ts";

/** In the order tools/list shows them. */
export const publicTools = {
  list_events: eventTools.list_events, get_event: eventTools.get_event, create_event: eventTools.create_event,
  update_event: eventTools.update_event, delete_event: eventTools.delete_event, list_hubs: hubTools.list_hubs,
  get_hub: hubTools.get_hub, create_hub: hubTools.create_hub, update_hub: hubTools.update_hub, delete_hub: hubTools.delete_hub,
  join_hub: hubTools.join_hub, leave_hub: hubTools.leave_hub, search_venues: venueTools.search_venues,
  list_nft_collections: collectionTools.list_nft_collections, get_nft_collection: collectionTools.get_nft_collection,
  get_checkout_session: checkoutTools.get_checkout_session,
  list_checkout_webhook_deliveries: checkoutTools.list_checkout_webhook_deliveries,
  get_sponsorship_balance: sponsorshipTools.get_sponsorship_balance,
  list_sponsorship_usage: sponsorshipTools.list_sponsorship_usage,
  list_sponsorship_deposits: sponsorshipTools.list_sponsorship_deposits,
  get_sponsorship_settings: sponsorshipTools.get_sponsorship_settings, list_my_wallets: identityTools.list_my_wallets,
  request_wallet_link: confirmationTools.request_wallet_link,
  request_sponsorship_settings_change: confirmationTools.request_sponsorship_settings_change,
  request_sponsored_deposit: confirmationTools.request_sponsored_deposit,
  get_confirmation_status: confirmationTools.get_confirmation_status, reserve_spot: checkinTools.reserve_spot,
  cancel_reservation: checkinTools.cancel_reservation, list_my_reservations: checkinTools.list_my_reservations,
  get_reservation: checkinTools.get_reservation, get_my_ticket_link: checkinTools.get_my_ticket_link,
  get_event_access: checkinTools.get_event_access, list_event_reservations: checkinTools.list_event_reservations,
  approve_reservation: checkinTools.approve_reservation, decline_reservation: checkinTools.decline_reservation,
  check_in_by_reservation: checkinTools.check_in_by_reservation, undo_check_in: checkinTools.undo_check_in,
  bind_bracelet: checkinTools.bind_bracelet, get_check_in_counts: checkinTools.get_check_in_counts,
};
export type PublicTools = typeof publicTools;
export type PublicToolName = keyof PublicTools;

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
