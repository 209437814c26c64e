// The check-in domain's shapes: event settings and staff, reservations and tickets, door scans
// (online and offline), bracelets and NFT access. What the door answers is a scan whose `result`
// says admitted or why not; the database writes these bodies (checkin.*_json), these schemas
// describe them for every surface.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { CreatedAt, Instant, INSTANT_FORMAT, ObjectId, Timestamp, UpdatedAt } from "../http/openapi.ts";

const EventId = ObjectId.describe("The event's id");
const ReservationId = ObjectId.describe("The reservation's id");

export const CheckInSettingsSchema = z.object({
  eventId: EventId,
  capacity: z.number().int().nullable().describe("Approved seats at most; null: no limit"),
  approvalRequired: z.boolean().describe("New reservations start `pending` until the host approves them"),
  waitlistEnabled: z.boolean().describe("When full, new reservations are `waitlisted` (else 409 `event_full`)"),
  registrationOpensAt: Timestamp.nullable().describe("Reservations are refused before this instant (UTC); null: no opening time"),
  registrationClosesAt: Timestamp.nullable().describe("Reservations are refused from this instant on (UTC); null: no closing time"),
}).openapi("CheckInSettings").describe("An event's reservation settings");

export const SaveCheckInSettingsSchema = z.object({
  capacity: z.number().int().min(1).max(1_000_000).nullable()
    .describe("null removes the limit. A larger capacity approves waitlisted reservations at once, oldest first."),
  approvalRequired: z.boolean().describe("true: new reservations start `pending` until the host approves them"),
  waitlistEnabled: z.boolean().describe("true: when full, new reservations are `waitlisted` (else 409 `event_full`)"),
  registrationOpensAt: Instant.nullable().describe(`Reservations are refused before this instant; null: no opening time. ${INSTANT_FORMAT}`),
  registrationClosesAt: Instant.nullable()
    .describe(`Reservations are refused from this instant on, after registrationOpensAt; null: no closing time. ${INSTANT_FORMAT}`),
}).partial().strict()
  .refine((s) => Object.keys(s).length > 0, "send at least one setting to change")
  .refine((s) => !s.registrationOpensAt || !s.registrationClosesAt || Date.parse(s.registrationOpensAt) < Date.parse(s.registrationClosesAt),
    { message: "registrationOpensAt must be before registrationClosesAt", path: ["registrationClosesAt"] })
  .openapi("SaveCheckInSettings", { example: { capacity: 120, approvalRequired: false, waitlistEnabled: true, registrationClosesAt: "2026-12-05T18:00:00+01:00" } })
  .describe("The settings to change; settings left out stay as they are");

export const StaffSchema = z.object({
  eventId: EventId,
  userId: ObjectId.describe("The checker's user id"),
  role: z.literal("checker").describe("Scans, binds bracelets, reads attendees and counts; never changes settings or decides"),
  name: z.string().nullable().describe("The checker's display name; null when their profile has none"),
  email: z.string().nullable().describe("The checker's e-mail; null when their account has none"),
  addedAt: Timestamp.describe("When they were added (UTC)"),
}).openapi("CheckInStaff").describe("A person who checks others in at the event");

export const StaffListSchema = z.object({ items: z.array(StaffSchema).describe("The event's checkers, in the order they were added") })
  .openapi("CheckInStaffList");

export const AddStaffSchema = z.union([
  z.object({ userId: ObjectId.describe("The person's user id") }).strict(),
  z.object({ email: z.string().trim().email().max(320).describe("The e-mail of the person's account (they must have one)") }).strict(),
]).openapi("AddCheckInStaff").describe("The person to add as a checker: their user id, or the e-mail of their account");

export const ReservationStatus = z.enum(["approved", "pending", "waitlisted", "declined", "cancelled"]).describe("approved: has a seat and a ticket; pending: waits for the host's approval; waitlisted: waits for a seat " +
    "(the oldest is approved when one frees up); declined by the host; cancelled by the person");

const Evidence = z.record(z.string(), z.unknown()).openapi("HoldingEvidence", {
  description: "A read of the person's holdings for one access rule: {rule, satisfied, balance, perOwner, tokens, block | checkpoint, readAt}, " +
    "or {rule, unavailable: true, code} when the chain could not be read",
});

export const ReservationSchema = z.object({
  id: ReservationId,
  eventId: EventId,
  userId: ObjectId.describe("The id of the user who reserved"),
  status: ReservationStatus,
  attendeeName: z.string().describe("The profile's name (or e-mail) when reserving: what the door shows"),
  ticketVersion: z.number().int().describe("Re-issuing the ticket adds one; QR codes of older versions scan as `revoked`"),
  inside: z.boolean().describe("Whether the person is inside now (admitted and not exited)"),
  checkedInAt: Timestamp.nullable().describe("The first admission that stands (UTC); null: never admitted"),
  accessEvidence: Evidence.nullable().describe("The read that satisfied the event's `register` rule, when it has one"),
  createdAt: CreatedAt,
  updatedAt: UpdatedAt,
  decidedAt: Timestamp.nullable().describe("When it was approved (by the host, on reserving or from the waitlist) or declined (UTC); null: neither yet"),
}).openapi("Reservation").describe("A person's reservation at an event");

export const ReservationListQuery = listQuerySchema({
  status: ReservationStatus.optional().describe("Only reservations in this status; omitted: all"),
}).openapi("ReservationListQuery");

export const TicketSchema = z.object({
  reservationId: ReservationId,
  eventId: EventId,
  ticketVersion: z.number().int().describe("The version this token carries; re-issuing adds one and revokes the older ones"),
  token: z.string().describe("The QR code's content: a compact JWS (EdDSA, `typ: ticket+jwt`) with claims t (reservation), e (event), v (version). " +
      "Scanners verify it offline with the keys of GET /api/v3/check-in/keys."),
}).openapi("Ticket").describe("An approved reservation's ticket");

export const ScanMethod = z.enum(["qr", "bracelet", "manual"])
  .describe("qr: a ticket's QR token; bracelet: an NFC bracelet; manual: a reservation id typed or picked at the door");
export const ScanDirection = z.enum(["entry", "exit"]).describe("entry: coming in; exit: going out");
export const ScanResult = z.enum(["admitted", "exited", "unknown", "wrong_event", "not_approved", "revoked", "already_inside",
  "not_inside", "access_denied", "access_unavailable", "token_already_used", "replayed_counter", "nonce_reused", "clock_skew"]).describe("admitted / exited: let through. Refusals: unknown (no such ticket or bracelet), wrong_event, not_approved " +
    "(pending or waitlisted), revoked (an old ticket version, a cancelled or declined reservation, a lost bracelet), already_inside, " +
    "not_inside (an exit without an entry), access_denied (the event's checkIn rule is not met by the linked wallets now), " +
    "access_unavailable (the chain could not be read: never admits), token_already_used (the NFT admitted someone else at this " +
    "event), replayed_counter (an NTAG 424 read counter not above the highest this tag ever sent, at any binding or event: a " +
    "copied bracelet URL); offline scans only: nonce_reused (the device used this nonce for another scan in the batch or before; " +
    "nothing else was decided), clock_skew (dated more than 5 minutes after the upload: the device's clock is wrong)");

const DeviceId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/).openapi({ example: "door-1" })
  .describe("The scanning device's own id (1-64 letters, digits, `.`, `_`, `:`, `-`); with `nonce` it makes a scan recorded once");
const Nonce = z.string().regex(/^[A-Za-z0-9._:-]{8,64}$/).openapi({ example: "6f1c2e9a0b7d" }).describe("Unique per scan on that device (8-64 characters). The same device, nonce, credential and direction again answers " +
    "the first outcome (`replayed: true`); the nonce with another credential or direction is 409 `nonce_reused` online, a " +
    "`nonce_reused` refusal offline");
const BraceletUid = z.string().min(8).max(40).openapi({ example: "04:A2:3B:4C:5D:6E:7F" }).describe("The NFC UID in hex (separators allowed)");
const SunMessage = z.object({
  piccData: z.string().regex(/^[0-9a-fA-F]{32}$/).describe("The encrypted PICCData of the bracelet's SUN URL (16 bytes, hex)"),
  cmac: z.string().regex(/^[0-9a-fA-F]{16}$/).describe("The SUN URL's SDMMAC (8 bytes, hex)"),
}).strict().openapi("SunMessage");

const credentialFields = {
  method: ScanMethod,
  ticket: z.string().min(20).max(2048).optional().describe("method qr: the QR code's token"),
  reservationId: ObjectId.optional().describe("method manual: the reservation to check in"),
  braceletUid: BraceletUid.optional().describe("method bracelet: a plain bracelet's UID"),
  sun: SunMessage.optional().describe("method bracelet: an NTAG 424 DNA bracelet's SUN message (instead of braceletUid)"),
  direction: ScanDirection.default("entry"),
  nonce: Nonce,
};

/** One credential per method: the QR token, a reservation id, or a bracelet (UID or SUN message). */
const oneCredential = (scan: { method: string; ticket?: string; reservationId?: string; braceletUid?: string; sun?: unknown }, ctx: z.RefinementCtx) => {
  const given = { qr: scan.ticket, manual: scan.reservationId, bracelet: scan.braceletUid ?? scan.sun };
  const expected = { qr: "ticket", manual: "reservationId", bracelet: "braceletUid or sun" }[scan.method as "qr"];
  if (given[scan.method as keyof typeof given] === undefined) ctx.addIssue({ code: "custom", path: [expected.split(" ")[0]!], message: `method ${scan.method} needs ${expected}` });
  const extra = (["ticket", "reservationId", "braceletUid", "sun"] as const)
    .filter((field) => scan[field] !== undefined && !expected.split(" or ").includes(field));
  if (scan.braceletUid !== undefined && scan.sun !== undefined) extra.push("sun");
  for (const field of extra) ctx.addIssue({ code: "custom", path: [field], message: `not used with method ${scan.method}` });
};

export const ScanRequestSchema = z.object({ ...credentialFields, deviceId: DeviceId }).strict().superRefine(oneCredential)
  .openapi("CheckInScanRequest", {
    example: { method: "qr", ticket: "eyJhbGciOiJFZERTQSIsImtpZCI6ImxvY2FsIiwidHlwIjoidGlja2V0K2p3dCJ9.eyJ0Ijo...", direction: "entry", deviceId: "door-1", nonce: "6f1c2e9a0b7d" },
  })
  .describe("One scan at the door: the credential its method needs, and nothing else");

export const OfflineScanSchema = z.object({ ...credentialFields, scannedAt: Instant.describe(`When the device scanned it. ${INSTANT_FORMAT}`) })
  .strict().superRefine(oneCredential).openapi("OfflineScan").describe("One scan a device made offline");

export const MAX_OFFLINE_SCANS = 10_000;
/** A full batch with QR tokens is about 5 MB: its route takes up to 8 MiB, every other route the default. */
export const OFFLINE_SCANS_BODY = { method: "POST", path: /^\/api\/v3\/events\/[^/]+\/check-ins\/offline$/, maxBytes: 8 * 1024 * 1024 };
export const OfflineBatchSchema = z.object({
  deviceId: DeviceId,
  scans: z.array(OfflineScanSchema).min(1).max(MAX_OFFLINE_SCANS)
    .describe(`The device's scans, 1 to ${MAX_OFFLINE_SCANS.toLocaleString("en")}, in any order: they are decided in scannedAt order`),
}).strict().openapi("OfflineScanBatch", {
  example: {
    deviceId: "door-2",
    scans: [
      { method: "qr", ticket: "eyJhbGciOiJFZERTQSIsImtpZCI6ImxvY2FsIiwidHlwIjoidGlja2V0K2p3dCJ9.eyJ0Ijo...", direction: "entry", nonce: "d2-000001", scannedAt: "2026-12-05T19:02:11.000Z" },
      { method: "bracelet", braceletUid: "04A23B4C5D6E7F", direction: "exit", nonce: "d2-000002", scannedAt: "2026-12-05T21:40:03.000Z" },
    ],
  },
});

export const ScanSchema = z.object({
  id: ObjectId.describe("The scan's id (undo_check_in and .../check-ins/{scanId}/undo take it)"),
  eventId: EventId,
  reservationId: ObjectId.nullable().describe("The reservation the credential named; null when it named none (unknown)"),
  braceletId: ObjectId.nullable().describe("The bracelet scanned; null for other methods or an unknown bracelet"),
  method: ScanMethod,
  direction: ScanDirection,
  result: ScanResult,
  admitted: z.boolean().describe("Whether the person goes through (admitted or exited)"),
  attendeeName: z.string().nullable().describe("The name the door shows; null when no reservation was found"),
  deviceId: z.string().describe("The scanning device, as it named itself"),
  nonce: z.string().describe("The device's nonce for this scan"),
  scannedAt: Timestamp.describe("When the scan was made (UTC): the device's scannedAt for an offline scan"),
  recordedAt: Timestamp.describe("When the service recorded it (UTC)"),
  offline: z.boolean().describe("Whether it came in an offline batch"),
  outsideEventWindow: z.boolean().describe("An offline scan made more than 6 hours before the event starts or after it ends: decided as usual, flagged for the " +
      "host to check (a device clock or an old batch)"),
  evidence: z.unknown().nullable().describe("The holdings read that decided an NFT-gated entry"),
  undoneAt: Timestamp.nullable().describe("When the admission or exit was undone (UTC); null: it stands"),
  replayed: z.boolean().describe("true: this device and nonce were recorded before; this is that first outcome"),
}).openapi("CheckInScan").describe("A recorded scan and what it decided");

export const OfflineBatchResultSchema = z.object({
  items: z.array(ScanSchema).describe("The recorded scans, in the order they were made (scannedAt)"),
  admitted: z.number().int().describe("Scans of the batch that let someone through (admitted or exited)"),
  refused: z.number().int().describe("Scans of the batch that were refused"),
  replayed: z.number().int().describe("Scans recorded by an earlier upload (answered as first decided)"),
}).openapi("OfflineScanBatchResult").describe("What an offline batch decided");

export const CountsSchema = z.object({
  eventId: EventId,
  capacity: z.number().int().nullable().describe("Approved seats at most; null: no limit"),
  approved: z.number().int().describe("Approved reservations (seats taken)"),
  pending: z.number().int().describe("Reservations waiting for the host's approval"),
  waitlisted: z.number().int().describe("Reservations waiting for a seat"),
  checkedIn: z.number().int().describe("Approved reservations admitted at least once"),
  insideNow: z.number().int().describe("People inside now (admitted and not exited)"),
}).openapi("CheckInCounts").describe("An event's live reservation and presence counts");

const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())).describe("Public JWKs (Ed25519, `kid` as in the ticket's header)") })
  .openapi("TicketKeys")
  .describe("The public keys that verify ticket tokens (a JWK Set)");
export const TicketKeysSchema = Jwks;

export const ManifestSchema = z.object({
  eventId: EventId,
  generatedAt: Timestamp.describe("When the manifest was read (UTC): later changes are not in it"),
  keys: Jwks,
  tickets: z.array(z.object({
    reservationId: ReservationId,
    ticketVersion: z.number().int().describe("The only ticket version that admits; older QR codes are revoked"),
    attendeeName: z.string().describe("The name the door shows"),
    inside: z.boolean().describe("Whether the person was inside when the manifest was read"),
    braceletUids: z.array(z.string()).describe("UIDs of the bracelets bound to the reservation (upper-case hex)"),
  }).describe("An approved reservation's ticket")).describe("Every approved reservation's ticket"),
}).openapi("CheckInManifest").describe("What an offline scanner needs to decide at the door");

export const BraceletSchema = z.object({
  id: ObjectId.describe("The bracelet's id (braceletId)"),
  eventId: EventId,
  uid: z.string().describe("Upper-case hex without separators"),
  reservationId: ObjectId.describe("The reservation it is (or was) bound to"),
  kind: z.enum(["plain", "sun"]).describe("plain: the UID alone; sun: an NTAG 424 DNA bracelet that sends a SUN message"),
  status: z.enum(["bound", "unbound", "lost"])
    .describe("bound: admits its reservation; unbound: returned (scans as unknown); lost: scans as revoked"),
  lastCounter: z.number().int().nullable().describe("sun: the highest read counter accepted (a lower or equal one is a replay); null for plain"),
  boundAt: Timestamp.describe("When it was bound (UTC)"),
  releasedAt: Timestamp.nullable().describe("When it was unbound or marked lost (UTC); null while bound"),
}).openapi("Bracelet").describe("An NFC bracelet bound to a reservation");

export const BindBraceletSchema = z.object({
  reservationId: ObjectId.describe("The approved reservation to bind the bracelet to"),
  uid: BraceletUid,
  kind: z.enum(["plain", "sun"]).default("plain").describe("plain: the UID alone, which any NFC phone can copy onto another tag; sun: an NTAG 424 DNA bracelet whose " +
      "scans send a SUN message (an AES-CMAC over the UID and a read counter), which cannot be forged and whose replays are refused"),
}).strict().openapi("BindBracelet", { example: { reservationId: "65f1c0a2b3d4e5f601234567", uid: "04:A2:3B:4C:5D:6E:7F", kind: "plain" } })
  .describe("A bracelet to bind to a reservation");

export const AccessSchema = z.object({
  eventId: EventId,
  view: z.boolean().describe("Whether you may see the event"),
  register: z.boolean().describe("Whether you may reserve a spot"),
  checkIn: z.boolean().describe("Whether your wallets meet the event's checkIn rules now"),
  evidence: z.array(Evidence).describe("The reads made now, one per access rule"),
}).openapi("EventAccess").describe("What your linked wallets grant at an event, read now");
