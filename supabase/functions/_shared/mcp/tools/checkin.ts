// MCP tools of reservations and the door (_shared/checkin).
// Destructive: takes away what a repeat call does not give back (a seat, an admission, a ticket
// version, a bracelet's binding, a checker's role). A repeated call answers the state the first one
// left (idempotent), except reissue_ticket (a new version each time) and remove_check_in_staff (404).
// A ticket reaches a person's assistant only as a link to the ticket page (get_my_ticket_link), which
// draws the QR code in the person's browser. At the door an assistant checks people in by reservation
// id alone: it has no camera or NFC reader, and a QR token or bracelet UID that reached it in text may
// have been put there by anyone, an event's description included.
import { z } from "zod";
import { define, type ToolAnnotations } from "../tools.ts";
import { listQuerySchema, pageSchema } from "../../http/listing.ts";
import {
  AccessSchema, AddStaffSchema, BindBraceletSchema, BraceletSchema, CheckInSettingsSchema, CountsSchema, ManifestSchema,
  OfflineBatchResultSchema, OfflineBatchSchema, ReservationListQuery, ReservationSchema, SaveCheckInSettingsSchema,
  ScanDirection, ScanRequestSchema, ScanSchema, StaffListSchema, StaffSchema, TicketSchema,
} from "../../checkin/schemas.ts";
import { ObjectId } from "../../http/openapi.ts";
import { ADD, DELETE, Deleted, onChain, READ, REPLACE } from "./common.ts";
import * as checkin from "../../checkin/operations.ts";

const eventArgs = z.object({ eventId: ObjectId }).strict();
const reservationArgs = eventArgs.extend({ reservationId: ObjectId });
const braceletArgs = eventArgs.extend({ braceletId: ObjectId });
/** Adds; repeating it adds nothing more. */
const ADD_ONCE: ToolAnnotations = { ...ADD, idempotentHint: true };

const TicketLinkSchema = z.object({
  url: z.string().describe("The ticket page; its #fragment is the ticket, which the page draws as a QR code"),
  reservationId: ObjectId.describe("The reservation the ticket is for"),
  ticketVersion: z.number().int().describe("The ticket version the link shows; re-issuing the ticket makes the link scan as revoked"),
  expiresNote: z.string().describe("When the link stops admitting, in words for the person"),
}).describe("A link to the person's ticket");

/** The checkin tools, by name. */
export const checkinTools = {
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
};
