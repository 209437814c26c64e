// The backend MCP endpoint's tools, picked from the domains' catalogs (_shared/mcp/tools/): each
// names the operation it runs, the same one its REST route runs, so structuredContent is exactly
// what REST answers. list_operations and call_api run over the REST registry they are given.
import type { AnyEndpoint } from "../../../_shared/http/endpoint.ts";
import { rawApiTools } from "../../../_shared/mcp/tools/raw-api.ts";
import { identityTools } from "../../../_shared/mcp/tools/identity.ts";
import { eventTools } from "../../../_shared/mcp/tools/events.ts";
import { hubTools } from "../../../_shared/mcp/tools/hubs.ts";
import { venueTools } from "../../../_shared/mcp/tools/venues.ts";
import { collectionTools } from "../../../_shared/mcp/tools/collections.ts";
import { suiTools } from "../../../_shared/mcp/tools/sui.ts";
import { checkoutTools } from "../../../_shared/mcp/tools/checkout.ts";
import { checkoutPaymentTools } from "../../../_shared/mcp/tools/checkout-payments.ts";
import { chainTools } from "../../../_shared/mcp/tools/chain.ts";
import { sponsorshipTools } from "../../../_shared/mcp/tools/sponsorship.ts";
import { checkinTools } from "../../../_shared/mcp/tools/checkin.ts";

/** In the order tools/list shows them. */
export function backendToolsOf(endpoints: readonly AnyEndpoint[]) {
  return {
    ...rawApiTools(endpoints),
    get_me: identityTools.get_me, list_events: eventTools.list_events, get_event: eventTools.get_event,
    create_event: eventTools.create_event, update_event: eventTools.update_event, delete_event: eventTools.delete_event,
    list_hubs: hubTools.list_hubs, get_hub: hubTools.get_hub, create_hub: hubTools.create_hub, update_hub: hubTools.update_hub,
    delete_hub: hubTools.delete_hub, search_venues: venueTools.search_venues,
    register_nft_collection: collectionTools.register_nft_collection, list_nft_collections: collectionTools.list_nft_collections,
    get_nft_collection: collectionTools.get_nft_collection, publish_sui_collection: suiTools.publish_sui_collection,
    list_sui_collections: suiTools.list_sui_collections, get_sui_collection: suiTools.get_sui_collection,
    create_checkout_session: checkoutTools.create_checkout_session, get_checkout_session: checkoutTools.get_checkout_session,
    retry_checkout_webhook: checkoutTools.retry_checkout_webhook,
    list_checkout_webhook_deliveries: checkoutTools.list_checkout_webhook_deliveries,
    build_checkout_payment: checkoutPaymentTools.build_checkout_payment, encode_contract_call: chainTools.encode_contract_call,
    confirm_checkout_payment: checkoutPaymentTools.confirm_checkout_payment,
    get_sponsorship_balance: sponsorshipTools.get_sponsorship_balance,
    check_sponsorship_eligibility: sponsorshipTools.check_sponsorship_eligibility,
    complete_sponsored_transaction: sponsorshipTools.complete_sponsored_transaction,
    cancel_sponsored_transaction: sponsorshipTools.cancel_sponsored_transaction,
    record_sponsorship_deposit: sponsorshipTools.record_sponsorship_deposit,
    record_sponsorship_usage: sponsorshipTools.record_sponsorship_usage, reserve_spot: checkinTools.reserve_spot,
    cancel_reservation: checkinTools.cancel_reservation, list_my_reservations: checkinTools.list_my_reservations,
    get_reservation: checkinTools.get_reservation, get_my_ticket: checkinTools.get_my_ticket,
    reissue_ticket: checkinTools.reissue_ticket, get_event_access: checkinTools.get_event_access,
    list_event_reservations: checkinTools.list_event_reservations, approve_reservation: checkinTools.approve_reservation,
    decline_reservation: checkinTools.decline_reservation, check_in: checkinTools.check_in,
    record_offline_scans: checkinTools.record_offline_scans, undo_check_in: checkinTools.undo_check_in,
    get_check_in_counts: checkinTools.get_check_in_counts, get_check_in_manifest: checkinTools.get_check_in_manifest,
    get_check_in_settings: checkinTools.get_check_in_settings, save_check_in_settings: checkinTools.save_check_in_settings,
    list_check_in_staff: checkinTools.list_check_in_staff, add_check_in_staff: checkinTools.add_check_in_staff,
    remove_check_in_staff: checkinTools.remove_check_in_staff, bind_bracelet: checkinTools.bind_bracelet,
    unbind_bracelet: checkinTools.unbind_bracelet, mark_bracelet_lost: checkinTools.mark_bracelet_lost,
  };
}
export type BackendTools = ReturnType<typeof backendToolsOf>;
