// The backend MCP endpoint's tools: each names the operation it runs (_shared/<domain>/operations.ts),
// the same one its REST route runs. Its input is the route's request schema (or a field of it) and
// its output the route's response schema, so structuredContent is exactly what REST answers.
import { z } from "zod";
import { define, type ToolAnnotations } from "../../../_shared/mcp/tools.ts";
import { encodeContractCall } from "../../../_shared/chain/encode-call.ts";
import * as events from "../../../_shared/events/operations.ts";
import { EventListQuery } from "../../../_shared/events/schemas.ts";
import * as collections from "../../../_shared/collections/operations.ts";
import * as sui from "../../../_shared/sui/operations.ts";
import { PublishSuiCollectionSchema, SuiCollectionListSchema, SuiCollectionSchema } from "../../../_shared/sui/schemas.ts";
import * as sessions from "../../../_shared/checkout/operations.ts";
import * as payments from "../../../_shared/checkout/payments.ts";
import * as sponsorship from "../../../_shared/sponsorship/operations.ts";
import * as rawApi from "./raw-api.ts";
import { listQuerySchema, pageSchema } from "../../../_shared/http/listing.ts";
import * as checkin from "../../../_shared/checkin/operations.ts";
import {
  AccessSchema, AddStaffSchema, BindBraceletSchema, BraceletSchema, CheckInSettingsSchema, CountsSchema, ManifestSchema,
  OfflineBatchResultSchema, OfflineBatchSchema, ReservationListQuery, ReservationSchema, SaveCheckInSettingsSchema, ScanRequestSchema,
  ScanSchema, StaffListSchema, StaffSchema, TicketSchema,
} from "../../../_shared/checkin/schemas.ts";
import { ObjectId } from "../../../_shared/http/openapi.ts";
import { ProfileSchema } from "../../../_shared/identity/schemas.ts";
import { CreateEventSchema, EventSchema, UpdateEventSchema } from "../../../_shared/events/schemas.ts";
import { CreateHubSchema, HubListQuery, HubSchema, UpdateHubSchema } from "../../../_shared/hubs/schemas.ts";
import * as hubs from "../../../_shared/hubs/operations.ts";
import * as identity from "../../../_shared/identity/operations.ts";
import * as venues from "../../../_shared/venues/operations.ts";
import { AutocompleteQuerySchema, VenueSuggestionsSchema } from "../../../_shared/venues/schemas.ts";
import { CollectionListSchema, CollectionSchema, RegisterCollectionSchema } from "../../../_shared/collections/schemas.ts";
import {
  CheckoutSessionSchema, ClientCheckoutSessionSchema, CreateCheckoutSessionSchema, PreparedPaymentSchema, PreparePaymentSchema,
  WebhookDeliveryLogSchema, WebhookDeliverySchema,
} from "../../../_shared/checkout/schemas.ts";
import {
  BalanceSchema, CancelResultSchema, CancelSchema, CheckResultSchema, CheckSchema, CompleteResultSchema, CompleteSchema, DepositSchema, PendingSchema,
  RecordDepositSchema, RecordUsageSchema, SponsorQuery, UsageSchema,
} from "../../../_shared/sponsorship/schemas.ts";

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const ADD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const REPLACE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const onChain = (annotations: ToolAnnotations): ToolAnnotations => ({ ...annotations, openWorldHint: true });


const clientSecret = z.string().min(1).max(200).describe("The checkout's client secret (clientSecret of create_checkout_session)");
export const Deleted = z.object({}).describe("Empty: the REST route answers 204 No Content");

// ---- The raw API ----------------------------------------------------------------------------

export const OperationSchema = z.object({
  operationId: z.string().describe("The operation's OpenAPI operationId, e.g. createCheckoutSession"),
  method: z.string().describe("The HTTP method, upper case (GET, POST, ...)"),
  path: z.string().describe("The path template, e.g. /api/v3/events/{eventId}"),
  summary: z.string().describe("What the operation does, in one line"),
  pathParameters: z.array(z.string()).describe("The names of the path's {placeholders}: call_api's pathParameters must fill each"),
  hasBody: z.boolean().describe("Whether the operation takes a JSON body (call_api's `body`)"),
}).describe("An API operation call_api can run");

const operations = {
  list_operations: define({
    name: "list_operations", toolset: "raw_api", operation: rawApi.listOperations,
    whenReadOnly: { operation: rawApi.listReadOnlyOperations },
    title: "List API operations",
    description: "Every v3 operation an API key can call (from the served OpenAPI document, GET /api/v3/openapi), " +
      "with the operationId that call_api takes. Read the OpenAPI document for request and response schemas.",
    input: z.object({}).strict(),
    output: z.object({ items: z.array(OperationSchema).describe("Every operation, in the document's order") }),
    annotations: READ,
  }),
  call_api: define({
    name: "call_api", toolset: "raw_api", operation: rawApi.callApi, dispatchesTo: rawApi.calledOperation,
    // Read-only: GET operations only, which change nothing; some read a chain.
    whenReadOnly: { operation: rawApi.callReadOnlyApi, dispatchesTo: rawApi.calledReadOnlyOperation, annotations: onChain(READ) },
    title: "Call an API operation",
    description: "Calls one v3 operation (see list_operations) as your API key, with the same validation, permissions and " +
      "errors as REST: `pathParameters` fill the path's {placeholders}, `query` becomes the query string, `body` the JSON body. " +
      "The REST answer is the result; a REST error is an isError result with its code.",
    input: z.object({
      operationId: z.string().min(1).max(200).describe("The operation to run: an operationId from list_operations, e.g. listEvents"),
      pathParameters: z.record(z.string(), z.string().min(1).max(200)).optional()
        .describe("A value for each {placeholder} of the operation's path, by name, e.g. { \"eventId\": \"65f1c0a2b3d4e5f601234567\" }"),
      query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()])).max(100)])).optional()
        .describe("The query parameters, by name (an array repeats the parameter, at most 100 values), e.g. { \"take\": 50 }"),
      body: z.unknown().optional().describe("The JSON request body, for an operation that takes one (hasBody); its schema is the OpenAPI document's"),
    }).strict(),
    output: z.object({}).catchall(z.unknown()).describe("The operation's JSON answer"),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  }),
};

// ---- Identity, events, hubs, venues ----------------------------------------------------------

const community = {
  get_me: define({
    name: "get_me", toolset: "identity", operation: identity.getMe, title: "Your profile", description: "The profile of the API key's owner (GET /api/v3/me).",
    input: z.object({}).strict(), output: ProfileSchema, annotations: READ,
  }),
  list_events: define({
    name: "list_events", toolset: "events", operation: events.listEvents, title: "List events",
    description: "Events visible to you, a page at a time (GET /api/v3/events). scope=mine: the events you own.",
    input: EventListQuery,
    output: pageSchema(EventSchema, "EventPage"), annotations: READ,
  }),
  get_event: define({
    name: "get_event", toolset: "events", operation: events.getEvent, title: "Read an event", description: "One event you may see (GET /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId }).strict(), output: EventSchema, annotations: READ,
  }),
  create_event: define({
    name: "create_event", toolset: "events", operation: events.createEvent, title: "Create an event",
    description: "Creates an event with venue, visibility and NFT access rules (POST /api/v3/events). The arguments are the REST body.",
    input: CreateEventSchema, output: EventSchema, annotations: ADD,
  }),
  update_event: define({
    name: "update_event", toolset: "events", operation: events.updateEvent, title: "Change an event",
    description: "Changes the fields given in `changes` of one of your events (PATCH /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId, changes: UpdateEventSchema }).strict(), output: EventSchema, annotations: REPLACE,
  }),
  delete_event: define({
    name: "delete_event", toolset: "events", operation: events.deleteEvent, title: "Delete an event", description: "Deletes one of your events (DELETE /api/v3/events/{eventId}).",
    input: z.object({ eventId: ObjectId }).strict(), output: Deleted, annotations: DELETE,
  }),
  list_hubs: define({
    name: "list_hubs", toolset: "hubs", operation: hubs.listHubs, title: "List hubs",
    description: "Hubs visible to you (GET /api/v3/hubs): scope=mine (owned or joined) or discover (public hubs you have not joined).",
    input: HubListQuery,
    output: pageSchema(HubSchema, "HubPage"), annotations: READ,
  }),
  get_hub: define({
    name: "get_hub", toolset: "hubs", operation: hubs.getHub, title: "Read a hub", description: "One hub you may see (GET /api/v3/hubs/{hubId}).",
    input: z.object({ hubId: ObjectId }).strict(), output: HubSchema, annotations: READ,
  }),
  create_hub: define({
    name: "create_hub", toolset: "hubs", operation: hubs.createHub, title: "Create a hub", description: "Creates a group or NFT-collection hub (POST /api/v3/hubs). The arguments are the REST body.",
    input: CreateHubSchema, output: HubSchema, annotations: ADD,
  }),
  update_hub: define({
    name: "update_hub", toolset: "hubs", operation: hubs.updateHub, title: "Change a hub",
    description: "Changes one of your hubs (PUT /api/v3/hubs/{hubId}); `changes.connectEventIds` connects events (additive).",
    input: z.object({ hubId: ObjectId, changes: UpdateHubSchema }).strict(), output: HubSchema, annotations: REPLACE,
  }),
  delete_hub: define({
    name: "delete_hub", toolset: "hubs", operation: hubs.deleteHub, title: "Delete a hub", description: "Deletes one of your hubs (DELETE /api/v3/hubs/{hubId}).",
    input: z.object({ hubId: ObjectId }).strict(), output: Deleted, annotations: DELETE,
  }),
  search_venues: define({
    name: "search_venues", toolset: "venues", operation: venues.searchVenues, title: "Find a venue",
    description: "Venue suggestions with coordinates for typed text (GET /api/v3/adresses/autocomplete).",
    input: AutocompleteQuerySchema, output: VenueSuggestionsSchema, annotations: { ...READ, openWorldHint: true },
  }),
};

// ---- NFT collections and checkout ------------------------------------------------------------

const checkout = {
  register_nft_collection: define({
    name: "register_nft_collection", toolset: "nft_collections", operation: collections.registerCollection, title: "Register an NFT collection",
    description: "Registers a deployed EVM collection you own on-chain for checkout (POST /api/v3/nft-collection). The arguments are the REST body.",
    input: RegisterCollectionSchema, output: CollectionSchema, annotations: onChain(ADD),
  }),
  list_nft_collections: define({
    name: "list_nft_collections", toolset: "nft_collections", operation: collections.listCollections, title: "List your NFT collections", description: "Your registered collections (GET /api/v3/nft-collection).",
    input: z.object({}).strict(), output: CollectionListSchema, annotations: READ,
  }),
  get_nft_collection: define({
    name: "get_nft_collection", toolset: "nft_collections", operation: collections.getCollection, title: "Read an NFT collection", description: "One of your collections (GET /api/v3/nft-collection/{collectionId}).",
    input: z.object({ collectionId: ObjectId }).strict(), output: CollectionSchema, annotations: READ,
  }),
  publish_sui_collection: define({
    name: "publish_sui_collection", toolset: "sui_collections", operation: sui.publishSuiCollection, title: "Publish a Sui event-pass collection",
    description: "Publishes a Sui collection of event passes, the service paying the gas; the organiser (one of your linked Sui " +
      "addresses) gets the capability to mint (POST /api/v3/crypto/sui/collection/publish, permission collections:publish). " +
      "Idempotent per clientReference. The arguments are the REST body.",
    input: PublishSuiCollectionSchema, output: SuiCollectionSchema, annotations: { ...onChain(ADD), idempotentHint: true },
  }),
  list_sui_collections: define({
    name: "list_sui_collections", toolset: "sui_collections", operation: sui.listSuiCollections, title: "List your Sui collections",
    description: "Your Sui collection publishes, newest first (GET /api/v3/crypto/sui/collection).",
    input: z.object({}).strict(), output: SuiCollectionListSchema, annotations: READ,
  }),
  get_sui_collection: define({
    name: "get_sui_collection", toolset: "sui_collections", operation: sui.getSuiCollection, title: "Read a Sui collection",
    description: "One of your Sui collection publishes by its record id (GET /api/v3/crypto/sui/collection/{collectionId}).",
    input: z.object({ collectionId: ObjectId }).strict(), output: SuiCollectionSchema, annotations: READ,
  }),
  create_checkout_session: define({
    name: "create_checkout_session", toolset: "checkout", operation: sessions.createCheckoutSession, title: "Create a checkout session",
    description: "A checkout for one store order (POST /api/v3/checkout/sessions, permission checkout:create). Idempotent per " +
      "externalOrderId; other data for a used one: 409 idempotency_conflict. The answer carries the client and webhook secrets.",
    input: CreateCheckoutSessionSchema, output: CheckoutSessionSchema, annotations: { ...ADD, idempotentHint: true },
  }),
  get_checkout_session: define({
    name: "get_checkout_session", toolset: "checkout", operation: sessions.getClientCheckoutSession, title: "Read a checkout session",
    description: "The client-safe session (GET /api/v3/checkout/sessions/{checkoutId} with X-Checkout-Client-Secret); a wrong secret answers 404.",
    input: z.object({ checkoutId: ObjectId, clientSecret }).strict(), output: ClientCheckoutSessionSchema, annotations: READ,
  }),
  retry_checkout_webhook: define({
    name: "retry_checkout_webhook", toolset: "checkout", operation: sessions.retryCheckoutWebhook, title: "Send the checkout webhook again",
    description: "Queues another delivery of checkout.completed (POST .../webhook/retry, permission checkout:retry); 409 unless COMPLETED.",
    input: z.object({ checkoutId: ObjectId }).strict(), output: WebhookDeliverySchema, annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
  list_checkout_webhook_deliveries: define({
    name: "list_checkout_webhook_deliveries", toolset: "checkout", operation: sessions.listWebhookDeliveries, title: "Webhook delivery log",
    description: "Every delivery of a checkout's webhook with its attempts (GET .../webhook/deliveries).",
    input: z.object({ checkoutId: ObjectId }).strict(),
    output: WebhookDeliveryLogSchema, annotations: READ,
  }),
};

// ---- Transaction primitives ------------------------------------------------------------------

const Hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/).describe("0x and an even number of hex digits");

const transactions = {
  build_checkout_payment: define({
    name: "build_checkout_payment", toolset: "checkout", operation: payments.preparePayment, title: "Build a checkout's payment transactions",
    description: "The transactions a payer signs for a checkout (POST .../payments with the client secret): an ERC-20 approval " +
      "first when needed, then the mint (with the service's voucher for dynamic prices). Records a payment attempt.",
    input: z.object({ checkoutId: ObjectId, clientSecret, payment: PreparePaymentSchema }).strict(),
    output: PreparedPaymentSchema, annotations: onChain(ADD),
  }),
  encode_contract_call: define({
    name: "encode_contract_call", toolset: "sponsorship", operation: encodeContractCall, title: "Encode a contract call",
    description: "ABI-encodes a call from a human-readable signature, e.g. `function mint(address to, bytes32 ref)` and its " +
      "arguments (uint values as decimal strings): the callData for check_sponsorship_eligibility or a relay. Computes only; sends nothing.",
    input: z.object({
      signature: z.string().min(10).max(1000).describe("`function name(type a, ...)`"),
      args: z.array(z.unknown()).max(50).default([])
        .describe("The call's arguments in the signature's order (at most 50): addresses and bytes as 0x-hex, uint and int values as decimal strings"),
    }).strict(),
    output: z.object({
      callData: Hex.describe("The ABI-encoded call: the selector, then the encoded arguments"),
      selector: z.string().describe("The function's 4-byte selector, 0x and 8 hex digits"),
    }),
    annotations: READ,
  }),
  confirm_checkout_payment: define({
    name: "confirm_checkout_payment", toolset: "checkout", operation: payments.confirmPayment, title: "Verify a checkout's payment receipt",
    description: "Verifies the paying transaction's receipt on-chain and completes the checkout (POST .../confirm): COMPLETED, " +
      "pending while not confirmed, or the receipt's refusal code.",
    input: z.object({
      checkoutId: ObjectId,
      clientSecret,
      txHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).describe("The hash of the mint transaction the payer sent: 0x and 64 hex digits"),
    }).strict(),
    output: z.union([
      ClientCheckoutSessionSchema,
      z.object({ status: z.string().describe("`confirming` while not confirmed, with `reason` and `message`") }).catchall(z.unknown()),
    ]).describe("The completed checkout, or why it is not confirmed yet"),
    annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
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
};

// ---- Reservations and check-in ---------------------------------------------------------------
// Destructive: takes away what a repeat call does not give back (a seat, an admission, a ticket
// version, a bracelet's binding, a checker's role). A repeated call answers the state the first one
// left (idempotent), except reissue_ticket (a new version each time) and remove_check_in_staff (404).

const eventArgs = z.object({ eventId: ObjectId }).strict();
export const reservationArgs = eventArgs.extend({ reservationId: ObjectId });
const braceletArgs = eventArgs.extend({ braceletId: ObjectId });
/** Adds; repeating it adds nothing more. */
const ADD_ONCE: ToolAnnotations = { ...ADD, idempotentHint: true };

const reservations = {
  reserve_spot: define({
    name: "reserve_spot", toolset: "reservations", operation: checkin.reserve, title: "Reserve a spot at an event",
    description: "Reserves a spot for you (POST /api/v3/events/{eventId}/reservations): approved, pending (the host approves) or " +
      "waitlisted; reserving again answers your active reservation. An event with NFT `register` rules reads your linked " +
      "wallets first (403 access_denied without the NFT).",
    input: eventArgs, output: ReservationSchema, annotations: onChain(ADD_ONCE),
  }),
  cancel_reservation: define({
    name: "cancel_reservation", toolset: "reservations", operation: checkin.cancelReservation, title: "Cancel your reservation",
    description: "Cancels your reservation at an event (POST .../reservations/{reservationId}/cancel); its seat goes to the " +
      "waitlist and its ticket stops admitting.",
    input: reservationArgs, output: ReservationSchema, annotations: DELETE,
  }),
  list_my_reservations: define({
    name: "list_my_reservations", toolset: "reservations", operation: checkin.listMyReservations, title: "Your reservations",
    description: "Every reservation you made, a page at a time (GET /api/v3/me/reservations); filter by status.",
    input: ReservationListQuery, output: pageSchema(ReservationSchema, "ReservationPage"), annotations: READ,
  }),
  get_reservation: define({
    name: "get_reservation", toolset: "reservations", operation: checkin.getReservation, title: "Read a reservation",
    description: "One reservation: yours, or any of an event you host or check people in at (GET .../reservations/{reservationId}).",
    input: reservationArgs, output: ReservationSchema, annotations: READ,
  }),
  get_my_ticket: define({
    name: "get_my_ticket", toolset: "reservations", operation: checkin.getTicket, title: "Your ticket's QR token",
    description: "The signed token your QR code carries, for your approved reservation (GET .../reservations/{reservationId}/ticket). " +
      "Whoever holds it can show it at the door: hand it only to the person.",
    input: reservationArgs, output: TicketSchema, annotations: READ,
  }),
  reissue_ticket: define({
    name: "reissue_ticket", toolset: "reservations", operation: checkin.reissueTicket, title: "Re-issue your ticket",
    description: "A new ticket version (POST .../ticket/reissue): QR codes of earlier versions scan as revoked (a lost phone, a shared screenshot).",
    input: reservationArgs, output: TicketSchema, annotations: { ...DELETE, idempotentHint: false },
  }),
  get_event_access: define({
    name: "get_event_access", toolset: "reservations", operation: checkin.getAccess, title: "What your wallets grant at an event",
    description: "Reads the event's NFT access rules from their chains over your linked wallets (GET /api/v3/events/{eventId}/access): " +
      "whether you may see it, register and check in, with the reads as evidence.",
    input: eventArgs, output: AccessSchema, annotations: onChain(READ),
  }),
  list_event_reservations: define({
    name: "list_event_reservations", toolset: "reservations", operation: checkin.listEventReservations, title: "An event's attendees",
    description: "The reservations of an event you host or check people in at, a page at a time (GET /api/v3/events/{eventId}/reservations): " +
      "filter by status, search names and e-mails.",
    input: listQuerySchema({ eventId: ObjectId, status: ReservationListQuery.shape.status }),
    toInput: ({ eventId, ...query }) => ({ eventId, query }),
    output: pageSchema(ReservationSchema, "ReservationPage"), annotations: READ,
  }),
  approve_reservation: define({
    name: "approve_reservation", toolset: "reservations", operation: checkin.approveReservation, title: "Approve a reservation",
    description: "Approves a pending or waitlisted reservation of your event when a seat is free (POST .../approve); the person gets a ticket.",
    input: reservationArgs, output: ReservationSchema, annotations: ADD_ONCE,
  }),
  decline_reservation: define({
    name: "decline_reservation", toolset: "reservations", operation: checkin.declineReservation, title: "Decline a reservation",
    description: "Declines a reservation of your event (POST .../decline): its ticket is revoked and a seat it held goes to the waitlist.",
    input: reservationArgs, output: ReservationSchema, annotations: DELETE,
  }),
};

const door = {
  check_in: define({
    name: "check_in", toolset: "check_in", operation: checkin.scan, title: "Scan at the door",
    description: "Records one scan at an event you host or check people in at (POST /api/v3/events/{eventId}/check-ins): a QR " +
      "ticket, a bracelet, or a reservation id (method manual), entry or exit. `result` says admitted or why not. The same " +
      "deviceId and nonce is recorded once and answers its first outcome. NFT `checkIn` rules read the attendee's wallets now.",
    input: ScanRequestSchema.extend({ eventId: ObjectId }),
    toInput: ({ eventId, ...scan }) => ({ eventId, scan }),
    output: ScanSchema, annotations: onChain(ADD_ONCE),
  }),
  record_offline_scans: define({
    name: "record_offline_scans", toolset: "check_in", operation: checkin.recordOfflineScans, title: "Upload offline scans",
    description: "Records scans a device made offline, up to 10,000, decided in the order they were made (POST .../check-ins/offline). " +
      "Uploading a batch again changes nothing.",
    input: OfflineBatchSchema.extend({ eventId: ObjectId }),
    toInput: ({ eventId, ...batch }) => ({ eventId, batch }),
    output: OfflineBatchResultSchema, annotations: ADD_ONCE,
  }),
  undo_check_in: define({
    name: "undo_check_in", toolset: "check_in", operation: checkin.undoScan, title: "Undo an admission or an exit",
    description: "Undoes a recorded admission or exit (POST .../check-ins/{scanId}/undo): the person's presence goes back.",
    input: eventArgs.extend({ scanId: ObjectId }), output: ScanSchema, annotations: DELETE,
  }),
  get_check_in_counts: define({
    name: "get_check_in_counts", toolset: "check_in", operation: checkin.counts, title: "Live check-in counts",
    description: "Approved, pending and waitlisted reservations, how many checked in and who is inside now (GET .../check-in/counts).",
    input: eventArgs, output: CountsSchema, annotations: READ,
  }),
  get_check_in_manifest: define({
    name: "get_check_in_manifest", toolset: "check_in", operation: checkin.manifest, title: "An offline scanner's manifest",
    description: "The public ticket keys and every approved ticket's version, name, presence and bracelets (GET .../check-in/manifest).",
    input: eventArgs, output: ManifestSchema, annotations: READ,
  }),
  get_check_in_settings: define({
    name: "get_check_in_settings", toolset: "check_in", operation: checkin.getSettings, title: "An event's reservation settings",
    description: "Capacity, approval, waitlist and registration window (GET .../check-in/settings).",
    input: eventArgs, output: CheckInSettingsSchema, annotations: READ,
  }),
  save_check_in_settings: define({
    name: "save_check_in_settings", toolset: "check_in", operation: checkin.saveSettings, title: "Change an event's reservation settings",
    description: "Changes the settings given in `settings` of your event (PUT .../check-in/settings); null clears capacity or a " +
      "window bound. A larger capacity approves waitlisted reservations at once.",
    input: eventArgs.extend({ settings: SaveCheckInSettingsSchema }), output: CheckInSettingsSchema, annotations: REPLACE,
  }),
  list_check_in_staff: define({
    name: "list_check_in_staff", toolset: "check_in", operation: checkin.listStaff, title: "An event's check-in staff",
    description: "The people who check others in at your event (GET /api/v3/events/{eventId}/staff).",
    input: eventArgs, output: StaffListSchema, annotations: READ,
  }),
  add_check_in_staff: define({
    name: "add_check_in_staff", toolset: "check_in", operation: checkin.addStaff, title: "Add a checker",
    description: "Lets a person check others in at your event, by `person.userId` or the e-mail of their account (POST .../staff).",
    input: eventArgs.extend({ person: AddStaffSchema }), output: StaffSchema, annotations: ADD_ONCE,
  }),
  remove_check_in_staff: define({
    name: "remove_check_in_staff", toolset: "check_in", operation: checkin.removeStaff, title: "Remove a checker",
    description: "Takes a checker off your event (DELETE /api/v3/events/{eventId}/staff/{userId}).",
    input: eventArgs.extend({ userId: ObjectId }), output: Deleted, annotations: { ...DELETE, idempotentHint: false },
  }),
  bind_bracelet: define({
    name: "bind_bracelet", toolset: "check_in", operation: checkin.bindBracelet, title: "Bind an NFC bracelet",
    description: "Binds a bracelet's UID to an approved reservation (POST /api/v3/events/{eventId}/bracelets); binding the same pair again answers it.",
    input: BindBraceletSchema.extend({ eventId: ObjectId }),
    toInput: ({ eventId, ...bracelet }) => ({ eventId, bracelet }),
    output: BraceletSchema, annotations: ADD_ONCE,
  }),
  unbind_bracelet: define({
    name: "unbind_bracelet", toolset: "check_in", operation: checkin.unbindBracelet, title: "Unbind a bracelet",
    description: "Releases a returned bracelet (POST .../bracelets/{braceletId}/unbind): it scans as unknown and can be bound again.",
    input: braceletArgs, output: BraceletSchema, annotations: DELETE,
  }),
  mark_bracelet_lost: define({
    name: "mark_bracelet_lost", toolset: "check_in", operation: checkin.markBraceletLost, title: "Mark a bracelet lost",
    description: "A lost bracelet scans as revoked from now on (POST .../bracelets/{braceletId}/lost); bind a new one to the reservation.",
    input: braceletArgs, output: BraceletSchema, annotations: DELETE,
  }),
};

/** Every tool of /mcp/backend, by name. */
export const backendTools = { ...operations, ...community, ...checkout, ...transactions, ...reservations, ...door };
export type BackendTools = typeof backendTools;
