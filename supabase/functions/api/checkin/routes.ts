// Check-in's routes: reservations (the person's own), the host's settings, staff and decisions, the
// door (scans online and offline, undo, attendance mints, counts, the offline manifest and ticket
// keys) and bracelets.
// The shapes are _shared/checkin/schemas.ts. A server's API key, or the check-in app's session.
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { requireApiKeyOrSession } from "../../_shared/auth/middleware.ts";
import {
  AccessSchema, AddStaffSchema, BindBraceletSchema, BraceletSchema, CheckInSettingsSchema, CountsSchema, ManifestSchema,
  OfflineBatchResultSchema, OfflineBatchSchema, ReservationListQuery, ReservationSchema, SaveCheckInSettingsSchema, ScanRequestSchema,
  ScanSchema, StaffListSchema, StaffSchema, TicketKeysSchema, TicketSchema,
} from "../../_shared/checkin/schemas.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { pageSchema } from "../../_shared/http/listing.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { AttendanceMintSchema, RelayAcceptedSchema, RelaySchema } from "../../_shared/relays/schemas.ts";
import { chainUnavailableResponse } from "../../_shared/chain/responses.ts";
import { relayFlow, wouldRevertResponse } from "../../_shared/relays/responses.ts";

const keyOrSession = [...apiKeySecurity, { SessionAuth: [] }];
const RESERVATIONS = ["Reservations"];
const DOOR = ["Check-in"];

const eventParam = pathIds("eventId");
const reservationParam = pathIds("eventId", "reservationId");

type Responses = RouteConfig["responses"];

/** A route of this domain: API key or app session, the common refusals plus `responses`. */
function checkinRoute<P extends string, M extends RouteConfig["method"], R extends NonNullable<RouteConfig["request"]>>(definition: {
  operationId: string; method: M; path: P; tags: string[]; summary: string; description: string; request: R; responses: Responses;
}) {
  return createRoute({
    ...definition,
    security: keyOrSession,
    middleware: [requireApiKeyOrSession] as const,
  });
}

const unprocessable = (description: string) => ({ 422: { description, content: { "application/json": { schema: ErrorBodySchema } } } });
const notConfigured = "503 `tickets_not_configured` when the service has no ticket keys (TICKET_SIGNING_KEYS).";
const STAFF_ONLY = "For the event's owner and its check-in staff (403 `not_event_staff` for others who can see the event, 404 `event_not_found` otherwise).";
const OWNER_ONLY = "For the event's owner (403 `not_event_owner`; 404 `event_not_found` when the event is not visible).";

// ---- Settings and staff ----

export const getCheckInSettings = checkinRoute({
  operationId: "getCheckInSettings",
  method: "get", path: "/api/v3/events/{eventId}/check-in/settings", tags: DOOR,
  summary: "The event's reservation settings",
  description: `Capacity, approval, waitlist and registration window. An event never configured has the defaults: no capacity, no approval, waitlist on, always open. ${STAFF_ONLY}`,
  request: { params: eventParam },
  responses: { 200: { description: "The settings", ...jsonContent(CheckInSettingsSchema) }, ...errorResponses(400, 401, 403, 404) },
});

export const saveCheckInSettings = checkinRoute({
  operationId: "saveCheckInSettings",
  method: "put", path: "/api/v3/events/{eventId}/check-in/settings", tags: DOOR,
  summary: "Change the event's reservation settings",
  description: "Fields you send change; `null` clears capacity or a window bound. Raising the capacity (or clearing it) approves " +
    "waitlisted reservations at once, oldest first. Lowering it below the approved count is allowed and takes no seat away: " +
    `nobody is approved from the waitlist until the approved count is below it. ${OWNER_ONLY}`,
  request: { params: eventParam, body: { required: true, ...jsonContent(SaveCheckInSettingsSchema) } },
  responses: { 200: { description: "The settings", ...jsonContent(CheckInSettingsSchema) }, ...errorResponses(400, 401, 403, 404, 413, 415) },
});

export const listStaff = checkinRoute({
  operationId: "listEventStaff",
  method: "get", path: "/api/v3/events/{eventId}/staff", tags: DOOR,
  summary: "The event's check-in staff",
  description: `People with the \`checker\` role: they scan, bind bracelets and read attendees and counts. ${OWNER_ONLY}`,
  request: { params: eventParam },
  responses: { 200: { description: "The staff", ...jsonContent(StaffListSchema) }, ...errorResponses(400, 401, 403, 404) },
});

export const addStaff = checkinRoute({
  operationId: "addEventStaff",
  method: "post", path: "/api/v3/events/{eventId}/staff", tags: DOOR,
  summary: "Add a checker",
  description: "By user id or by the e-mail of their account (404 `user_not_found`). 201 added; 200 already staff. The owner " +
    `is never staff of their own event (409 \`owner_is_staff\`): they run the door already. ${OWNER_ONLY}`,
  request: { params: eventParam, body: { required: true, ...jsonContent(AddStaffSchema) } },
  responses: {
    201: { description: "Added", ...jsonContent(StaffSchema) },
    200: { description: "Already staff", ...jsonContent(StaffSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415),
  },
});

export const removeStaff = checkinRoute({
  operationId: "removeEventStaff",
  method: "delete", path: "/api/v3/events/{eventId}/staff/{userId}", tags: DOOR,
  summary: "Remove a checker",
  description: `Their scans stay recorded. 404 \`staff_not_found\` when the user is not staff. ${OWNER_ONLY}`,
  request: { params: pathIds("eventId", "userId") },
  responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404) },
});

// ---- Reservations ----

export const reserve = checkinRoute({
  operationId: "createReservation",
  method: "post", path: "/api/v3/events/{eventId}/reservations", tags: RESERVATIONS,
  summary: "Reserve a spot",
  description: "For you (the key's owner or the session's person), at a PUBLISHED event you can see. One active reservation per " +
    "person and event: 201 a new one; 200 your active one, as it is (reserving again is safe to retry). Its status: " +
    "`approved` while seats are free (or with no capacity), `pending` when the host approves reservations, `waitlisted` when full " +
    "(the oldest waitlisted one is approved as soon as a seat frees up), else 409 `event_full`. 409 `registration_closed` outside " +
    "the registration window or for a draft. An event with `register` access rules reads your linked wallets on those chains " +
    "first (one read per rule, kept 15 seconds): 403 `access_denied` (with the reads in `details.evidence`) without the NFT; 503 " +
    "`holdings_unavailable` when a chain cannot be read (never admitted by default).",
  request: { params: eventParam },
  responses: {
    201: { description: "Reserved now", ...jsonContent(ReservationSchema) },
    200: { description: "Your active reservation", ...jsonContent(ReservationSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

export const listEventReservations = checkinRoute({
  operationId: "listEventReservations",
  method: "get", path: "/api/v3/events/{eventId}/reservations", tags: RESERVATIONS,
  summary: "The event's reservations (host and staff)",
  description: "Oldest first by default is `order=asc`; `status` filters, `search` matches the attendee's name or e-mail; page with " +
    `\`cursor\` (keyset) or \`page\`. ${STAFF_ONLY}`,
  request: { params: eventParam, query: ReservationListQuery },
  responses: { 200: { description: "A page of reservations", ...jsonContent(pageSchema(ReservationSchema, "ReservationPage")) }, ...errorResponses(400, 401, 403, 404) },
});

export const listMyReservations = checkinRoute({
  operationId: "listMyReservations",
  method: "get", path: "/api/v3/me/reservations", tags: RESERVATIONS,
  summary: "Your reservations",
  description: "Every reservation you made, newest first by default, with the same filters and paging as the host's list.",
  request: { query: ReservationListQuery },
  responses: { 200: { description: "A page of reservations", ...jsonContent(pageSchema(ReservationSchema, "ReservationPage")) }, ...errorResponses(400, 401) },
});

export const getReservation = checkinRoute({
  operationId: "getReservation",
  method: "get", path: "/api/v3/events/{eventId}/reservations/{reservationId}", tags: RESERVATIONS,
  summary: "One reservation",
  description: "Yours, or any of the event's for its owner and staff (404 `reservation_not_found` otherwise).",
  request: { params: reservationParam },
  responses: { 200: { description: "The reservation", ...jsonContent(ReservationSchema) }, ...errorResponses(400, 401, 404) },
});

export const cancelReservation = checkinRoute({
  operationId: "cancelReservation",
  method: "post", path: "/api/v3/events/{eventId}/reservations/{reservationId}/cancel", tags: RESERVATIONS,
  summary: "Cancel your reservation",
  description: "Its seat goes to the oldest waitlisted reservation in the same transaction. Cancelling again answers the cancelled " +
    "reservation. Only the person cancels (403 `not_your_reservation`); the host declines.",
  request: { params: reservationParam },
  responses: { 200: { description: "The cancelled reservation", ...jsonContent(ReservationSchema) }, ...errorResponses(400, 401, 403, 404) },
});

export const approveReservation = checkinRoute({
  operationId: "approveReservation",
  method: "post", path: "/api/v3/events/{eventId}/reservations/{reservationId}/approve", tags: RESERVATIONS,
  summary: "Approve a pending or waitlisted reservation",
  description: "Needs a free seat (409 `event_full`); a cancelled one stays cancelled (409 `reservation_cancelled`); approving " +
    `again answers it as it is. ${OWNER_ONLY}`,
  request: { params: reservationParam },
  responses: { 200: { description: "The reservation", ...jsonContent(ReservationSchema) }, ...errorResponses(400, 401, 403, 404, 409) },
});

export const declineReservation = checkinRoute({
  operationId: "declineReservation",
  method: "post", path: "/api/v3/events/{eventId}/reservations/{reservationId}/decline", tags: RESERVATIONS,
  summary: "Decline a reservation",
  description: "Its ticket is revoked; a seat it held goes to the oldest waitlisted reservation in the same transaction. " +
    `409 \`reservation_cancelled\` when the person cancelled it. ${OWNER_ONLY}`,
  request: { params: reservationParam },
  responses: { 200: { description: "The reservation", ...jsonContent(ReservationSchema) }, ...errorResponses(400, 401, 403, 404, 409) },
});

export const getTicket = checkinRoute({
  operationId: "getTicket",
  method: "get", path: "/api/v3/events/{eventId}/reservations/{reservationId}/ticket", tags: RESERVATIONS,
  summary: "Your ticket (the QR code's content)",
  description: "For your approved reservation (409 `reservation_not_approved` otherwise; 404 for anyone else's). The token is " +
    `signed, so scanners verify it offline; its version must be the reservation's current one. ${notConfigured}`,
  request: { params: reservationParam },
  responses: { 200: { description: "The ticket", ...jsonContent(TicketSchema) }, ...errorResponses(400, 401, 404, 409, 503) },
});

export const reissueTicket = checkinRoute({
  operationId: "reissueTicket",
  method: "post", path: "/api/v3/events/{eventId}/reservations/{reservationId}/ticket/reissue", tags: RESERVATIONS,
  summary: "Re-issue your ticket",
  description: "A new version: QR codes of earlier versions scan as `revoked` (a lost phone, a shared screenshot). Only the person " +
    `(403 \`not_your_reservation\`). ${notConfigured}`,
  request: { params: reservationParam },
  responses: { 200: { description: "The new ticket", ...jsonContent(TicketSchema) }, ...errorResponses(400, 401, 403, 404, 409, 503) },
});

export const getAccess = checkinRoute({
  operationId: "getEventAccess",
  method: "get", path: "/api/v3/events/{eventId}/access", tags: RESERVATIONS,
  summary: "What your wallets grant at this event",
  description: "Reads every access rule of the event from its chain over your linked addresses (EVM: one multicall per rule at one " +
    "block; Sui: owned objects at a checkpoint) and answers `view`, `register` and `checkIn` (true when no rule restricts it). " +
    "The reads are kept: a satisfying `view` read lists the event for you for 24 hours; reads decide `register` for 15 seconds. " +
    "A chain that cannot be read is in `evidence` as `unavailable` and grants nothing.",
  request: { params: eventParam },
  responses: { 200: { description: "Your access", ...jsonContent(AccessSchema) }, ...errorResponses(400, 401, 404) },
});

// ---- The door ----

export const scan = checkinRoute({
  operationId: "scanTicket",
  method: "post", path: "/api/v3/events/{eventId}/check-ins", tags: DOOR,
  summary: "Scan a ticket, a bracelet, or check someone in by reservation",
  description: "Answers 200 with the recorded scan: `result` says admitted (or exited) or why not, with the attendee's name. " +
    "The same `deviceId` and `nonce` is recorded once: sending the same scan again answers the first outcome with `replayed: true` " +
    "(concurrent retries too); the nonce with another credential or direction is 409 `nonce_reused` and records nothing. " +
    "Two scanners racing on one ticket: one is admitted, the other told `already_inside`. An entry to an event with `checkIn` " +
    "access rules reads the attendee's wallets now (a token sold since reserving no longer admits), stores the read with the scan, " +
    "and one token admits one person per event (`token_already_used`). 422 `ticket_malformed` / `ticket_signature_invalid` / " +
    "`ticket_unknown_key` / `ticket_expired` for a QR code that is not a valid ticket, `sun_malformed` / `sun_mac_invalid` for a " +
    "forged bracelet message: nothing is recorded. 400 `invalid_bracelet_uid`. 503 `sun_not_configured`. " + `${STAFF_ONLY} ${notConfigured}`,
  request: { params: eventParam, body: { required: true, ...jsonContent(ScanRequestSchema) } },
  responses: {
    200: { description: "The scan", ...jsonContent(ScanSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 503),
    ...unprocessable("Not a valid ticket or bracelet message (code names why); nothing recorded"),
  },
});

export const recordOfflineScans = checkinRoute({
  operationId: "recordOfflineScans",
  method: "post", path: "/api/v3/events/{eventId}/check-ins/offline", tags: DOOR,
  summary: "Upload scans a device made offline",
  description: "Up to 10,000 scans (body up to 8 MiB), decided in the order they were made (`scannedAt`): the first entry of a " +
    "ticket wins, later ones are `already_inside`; a nonce already recorded for the device is recorded once (`replayed`), so " +
    "uploading the same batch again changes nothing, and a nonce the device used for another credential or direction is recorded " +
    "as `nonce_reused` (refused, nobody named). A QR code or SUN message that does not verify is recorded as `unknown`. A scan " +
    "dated more than 5 minutes after the upload is refused as `clock_skew`; one made more than 6 hours before the event starts or " +
    "after it ends is decided as usual and flagged `outsideEventWindow: true`. " +
    `NFT rules are decided by the reads on record (the device could not read a chain). ${STAFF_ONLY}`,
  request: { params: eventParam, body: { required: true, ...jsonContent(OfflineBatchSchema) } },
  responses: { 200: { description: "The recorded scans", ...jsonContent(OfflineBatchResultSchema) }, ...errorResponses(400, 401, 403, 404, 413, 415, 503) },
});

export const undoScan = checkinRoute({
  operationId: "undoScan",
  method: "post", path: "/api/v3/events/{eventId}/check-ins/{scanId}/undo", tags: DOOR,
  summary: "Undo an admission or an exit",
  description: "The person's presence goes back and the tokens the admission claimed are free again. Undoing again answers the " +
    "undone scan; 409 `later_scan_exists` when a later entry or exit of the person stands (undo that first), `scan_not_undoable` " +
    `for a refusal. ${STAFF_ONLY}`,
  request: { params: pathIds("eventId", "scanId") },
  responses: { 200: { description: "The undone scan", ...jsonContent(ScanSchema) }, ...errorResponses(400, 401, 403, 404, 409) },
});

export const attendanceMint = checkinRoute({
  operationId: "mintAttendance",
  method: "post", path: "/api/v3/events/{eventId}/check-ins/{scanId}/attendance-mint", tags: DOOR,
  summary: "Mint the attendee's proof of attendance, gas paid by a sponsor",
  description: "A sponsored check-in: one token of `collectionId` to the attendee of an admission, sent by the service's relayer " +
    "and paid from a sponsor's balance through the sponsorship ledger as operation `check_in` (relay kind `check_in`). The scan " +
    "must be this event's (404 `scan_not_found`), `admitted`, not undone, its reservation still approved (409 `scan_not_admitted`). " +
    "The token goes to the attendee's first linked address on the collection's chain (409 `attendee_has_no_wallet` when they " +
    "linked none), which is also the actor the sponsor's caps count and the usage is recorded against. The collection must be " +
    "registered by the event's owner (409 `collection_not_event_owners`; 404 `collection_not_found`) and priced static, native, " +
    "at 0 (409 `mint_not_free`); the relayer calls its `mint(to, checkoutRef)` with a reference made from the reservation and " +
    "the collection, so the contract too mints it once.\n\n" +
    "One attendance mint per reservation and collection: asking again, for any admission of the reservation and by anyone at " +
    "the door, answers 200 with the relay asked for first, as the status read shows it (a `GaslessRelay`, which holds every " +
    "field of the 202 answer). Only a mint whose relay failed (its nonce went to a transaction not the service's) is asked for anew.\n\n" +
    "Who may spend the sponsor's money: the sponsor wallet must be linked by you or by the event's owner (403 " +
    "`sponsor_not_event_owners`). The owner's checkers thus spend the owner's sponsor, only for the owner's event, for attendees " +
    "the door admitted, once each: the owner made them staff of that door and enabled `check_in` on the wallet. Nobody spends " +
    "a third party's sponsor, and someone outside the door nobody's. The sponsor must enable `check_in`; its allowedTargets, when " +
    "not empty, must list the collection; its caps and balance apply.\n\n" +
    relayFlow("403 `sponsor_not_event_owners`",
      "`GET /api/v3/nft-collection/{collectionId}/gasless/{relayId}` (for whoever asked, the sponsor's owner, and the event's owner and staff)") +
    ` ${STAFF_ONLY}`,
  request: { params: pathIds("eventId", "scanId"), body: { required: true, ...jsonContent(AttendanceMintSchema) } },
  responses: {
    202: { description: "Signed and broadcast (or queued for broadcast)", ...jsonContent(RelayAcceptedSchema) },
    200: { description: "Asked for already: that relay, as its status read shows it", ...jsonContent(RelaySchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
    ...wouldRevertResponse,
    ...chainUnavailableResponse,
  },
});

export const counts = checkinRoute({
  operationId: "getCheckInCounts",
  method: "get", path: "/api/v3/events/{eventId}/check-in/counts", tags: DOOR,
  summary: "Live counts",
  description: `Approved, pending and waitlisted reservations, how many checked in, and who is inside now. ${STAFF_ONLY}`,
  request: { params: eventParam },
  responses: { 200: { description: "The counts", ...jsonContent(CountsSchema) }, ...errorResponses(400, 401, 403, 404) },
});

export const manifest = checkinRoute({
  operationId: "getCheckInManifest",
  method: "get", path: "/api/v3/events/{eventId}/check-in/manifest", tags: DOOR,
  summary: "Everything an offline scanner needs",
  description: "The public ticket keys and every approved reservation's ticket version, name, presence and bound bracelets. A scanner " +
    "verifies QR codes against it offline, then uploads its scans. " + `${STAFF_ONLY} ${notConfigured}`,
  request: { params: eventParam },
  responses: { 200: { description: "The manifest", ...jsonContent(ManifestSchema) }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const ticketKeys = checkinRoute({
  operationId: "listTicketKeys",
  method: "get", path: "/api/v3/check-in/keys", tags: DOOR,
  summary: "The public keys of tickets (JWKS)",
  description: `Ed25519 keys (\`alg: EdDSA\`) by \`kid\`; during a rotation the old key is still listed. ${notConfigured}`,
  request: {},
  responses: { 200: { description: "The keys", ...jsonContent(TicketKeysSchema) }, ...errorResponses(401, 503) },
});

// ---- Bracelets ----

export const bindBracelet = checkinRoute({
  operationId: "bindBracelet",
  method: "post", path: "/api/v3/events/{eventId}/bracelets", tags: DOOR,
  summary: "Bind an NFC bracelet to an approved reservation",
  description: "The UID is normalised (upper-case hex, separators dropped; 4, 7 or 10 bytes). 201 bound; 200 this pair was bound " +
    "already. 409 `bracelet_in_use` (the UID is bound to someone else), `reservation_has_bracelet`, `reservation_not_approved`. " +
    "Plain UIDs can be copied by any NFC phone; `kind: sun` bracelets (NTAG 424 DNA) cannot be forged, and a read counter at or " +
    "below the highest the tag ever sent (at any binding or event) is refused at the door. A `sun` bracelet's UID is 7 bytes " +
    `(422 \`sun_uid_not_7_bytes\`). ${STAFF_ONLY}`,
  request: { params: eventParam, body: { required: true, ...jsonContent(BindBraceletSchema) } },
  responses: {
    201: { description: "Bound", ...jsonContent(BraceletSchema) },
    200: { description: "Already bound to this reservation", ...jsonContent(BraceletSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415),
    ...unprocessable("A `sun` bracelet whose UID is not 7 bytes (`sun_uid_not_7_bytes`)"),
  },
});

const braceletParam = pathIds("eventId", "braceletId");

export const unbindBracelet = checkinRoute({
  operationId: "unbindBracelet",
  method: "post", path: "/api/v3/events/{eventId}/bracelets/{braceletId}/unbind", tags: DOOR,
  summary: "Unbind a bracelet (returned)",
  description: `It scans as \`unknown\` afterwards and can be bound again. A released bracelet is answered as it is. ${STAFF_ONLY}`,
  request: { params: braceletParam },
  responses: { 200: { description: "The bracelet", ...jsonContent(BraceletSchema) }, ...errorResponses(400, 401, 403, 404) },
});

export const markBraceletLost = checkinRoute({
  operationId: "markBraceletLost",
  method: "post", path: "/api/v3/events/{eventId}/bracelets/{braceletId}/lost", tags: DOOR,
  summary: "Mark a bracelet lost",
  description: `It scans as \`revoked\` from now on; bind a new one to the reservation. ${STAFF_ONLY}`,
  request: { params: braceletParam },
  responses: { 200: { description: "The bracelet", ...jsonContent(BraceletSchema) }, ...errorResponses(400, 401, 403, 404) },
});
