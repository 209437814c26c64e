// The check-in domain's shapes: event settings and staff, reservations and tickets, door scans
// (online and offline), bracelets and NFT access. What the door answers is a scan whose `result`
// says admitted or why not; the database writes these bodies (checkin.*_json), these schemas
// describe them for every surface.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { Instant, ObjectId } from "../http/openapi.ts";

const timestamp = z.string().openapi({ format: "date-time" });

export const CheckInSettingsSchema = z.object({
  eventId: ObjectId,
  capacity: z.number().int().nullable().openapi({ description: "Approved seats at most; null: no limit" }),
  approvalRequired: z.boolean().openapi({ description: "New reservations start `pending` until the host approves them" }),
  waitlistEnabled: z.boolean().openapi({ description: "When full, new reservations are `waitlisted` (else 409 `event_full`)" }),
  registrationOpensAt: timestamp.nullable(),
  registrationClosesAt: timestamp.nullable(),
}).openapi("CheckInSettings");

export const SaveCheckInSettingsSchema = z.object({
  capacity: z.number().int().min(1).max(1_000_000).nullable()
    .openapi({ description: "null removes the limit. A larger capacity approves waitlisted reservations at once, oldest first." }),
  approvalRequired: z.boolean(),
  waitlistEnabled: z.boolean(),
  registrationOpensAt: Instant.nullable(),
  registrationClosesAt: Instant.nullable(),
}).partial().strict()
  .refine((s) => Object.keys(s).length > 0, "send at least one setting to change")
  .refine((s) => !s.registrationOpensAt || !s.registrationClosesAt || Date.parse(s.registrationOpensAt) < Date.parse(s.registrationClosesAt),
    { message: "registrationOpensAt must be before registrationClosesAt", path: ["registrationClosesAt"] })
  .openapi("SaveCheckInSettings", { example: { capacity: 120, approvalRequired: false, waitlistEnabled: true, registrationClosesAt: "2026-12-05T18:00:00+01:00" } });

export const StaffSchema = z.object({
  eventId: ObjectId,
  userId: ObjectId,
  role: z.literal("checker").openapi({ description: "Scans, binds bracelets, reads attendees and counts; never changes settings or decides" }),
  name: z.string().nullable(),
  email: z.string().nullable(),
  addedAt: timestamp,
}).openapi("CheckInStaff");

export const AddStaffSchema = z.union([
  z.object({ userId: ObjectId }).strict(),
  z.object({ email: z.string().trim().email().max(320) }).strict(),
]).openapi("AddCheckInStaff", { description: "The person to add as a checker: their user id, or the e-mail of their account" });

export const ReservationStatus = z.enum(["approved", "pending", "waitlisted", "declined", "cancelled"]).openapi({
  description: "approved: has a seat and a ticket; pending: waits for the host's approval; waitlisted: waits for a seat " +
    "(the oldest is approved when one frees up); declined by the host; cancelled by the person",
});

const Evidence = z.record(z.string(), z.unknown()).openapi("HoldingEvidence", {
  description: "A read of the person's holdings for one access rule: {rule, satisfied, balance, perOwner, tokens, block | checkpoint, readAt}, " +
    "or {rule, unavailable: true, code} when the chain could not be read",
});

export const ReservationSchema = z.object({
  id: ObjectId,
  eventId: ObjectId,
  userId: ObjectId,
  status: ReservationStatus,
  attendeeName: z.string().openapi({ description: "The profile's name (or e-mail) when reserving: what the door shows" }),
  ticketVersion: z.number().int().openapi({ description: "Re-issuing the ticket adds one; QR codes of older versions scan as `revoked`" }),
  inside: z.boolean(),
  checkedInAt: timestamp.nullable().openapi({ description: "The first admission that stands" }),
  accessEvidence: Evidence.nullable().openapi({ description: "The read that satisfied the event's `register` rule, when it has one" }),
  createdAt: timestamp,
  updatedAt: timestamp,
  decidedAt: timestamp.nullable(),
}).openapi("Reservation");

export const ReservationListQuery = listQuerySchema({
  status: ReservationStatus.optional(),
}).openapi("ReservationListQuery");

export const TicketSchema = z.object({
  reservationId: ObjectId,
  eventId: ObjectId,
  ticketVersion: z.number().int(),
  token: z.string().openapi({
    description: "The QR code's content: a compact JWS (EdDSA, `typ: ticket+jwt`) with claims t (reservation), e (event), v (version). " +
      "Scanners verify it offline with the keys of GET /api/v3/check-in/keys.",
  }),
}).openapi("Ticket");

export const ScanMethod = z.enum(["qr", "bracelet", "manual"]);
export const ScanDirection = z.enum(["entry", "exit"]);
export const ScanResult = z.enum(["admitted", "exited", "unknown", "wrong_event", "not_approved", "revoked", "already_inside",
  "not_inside", "access_denied", "access_unavailable", "token_already_used", "replayed_counter", "nonce_reused", "clock_skew"]).openapi({
  description: "admitted / exited: let through. Refusals: unknown (no such ticket or bracelet), wrong_event, not_approved " +
    "(pending or waitlisted), revoked (an old ticket version, a cancelled or declined reservation, a lost bracelet), already_inside, " +
    "not_inside (an exit without an entry), access_denied (the event's checkIn rule is not met by the linked wallets now), " +
    "access_unavailable (the chain could not be read: never admits), token_already_used (the NFT admitted someone else at this " +
    "event), replayed_counter (an NTAG 424 read counter not above the highest this tag ever sent, at any binding or event: a " +
    "copied bracelet URL); offline scans only: nonce_reused (the device used this nonce for another scan in the batch or before; " +
    "nothing else was decided), clock_skew (dated more than 5 minutes after the upload: the device's clock is wrong)",
});

const DeviceId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/).openapi({ description: "The scanning device", example: "door-1" });
const Nonce = z.string().regex(/^[A-Za-z0-9._:-]{8,64}$/).openapi({
  description: "Unique per scan on that device (8-64 characters). The same device, nonce, credential and direction again answers " +
    "the first outcome (`replayed: true`); the nonce with another credential or direction is 409 `nonce_reused` online, a " +
    "`nonce_reused` refusal offline",
  example: "6f1c2e9a0b7d",
});
const BraceletUid = z.string().min(8).max(40).openapi({ description: "The NFC UID in hex (separators allowed)", example: "04:A2:3B:4C:5D:6E:7F" });
const SunMessage = z.object({
  piccData: z.string().regex(/^[0-9a-fA-F]{32}$/).openapi({ description: "The encrypted PICCData of the bracelet's SUN URL (16 bytes, hex)" }),
  cmac: z.string().regex(/^[0-9a-fA-F]{16}$/).openapi({ description: "The SUN URL's SDMMAC (8 bytes, hex)" }),
}).strict().openapi("SunMessage");

const credentialFields = {
  method: ScanMethod,
  ticket: z.string().min(20).max(2048).optional().openapi({ description: "method qr: the QR code's token" }),
  reservationId: ObjectId.optional().openapi({ description: "method manual: the reservation to check in" }),
  braceletUid: BraceletUid.optional().openapi({ description: "method bracelet: a plain bracelet's UID" }),
  sun: SunMessage.optional().openapi({ description: "method bracelet: an NTAG 424 DNA bracelet's SUN message (instead of braceletUid)" }),
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
  });

export const OfflineScanSchema = z.object({ ...credentialFields, scannedAt: Instant.openapi({ description: "When the device scanned it" }) })
  .strict().superRefine(oneCredential).openapi("OfflineScan");

export const MAX_OFFLINE_SCANS = 10_000;
/** A full batch with QR tokens is about 5 MB: its route takes up to 8 MiB, every other route the default. */
export const OFFLINE_SCANS_BODY = { method: "POST", path: /^\/api\/v3\/events\/[^/]+\/check-ins\/offline$/, maxBytes: 8 * 1024 * 1024 };
export const OfflineBatchSchema = z.object({
  deviceId: DeviceId,
  scans: z.array(OfflineScanSchema).min(1).max(MAX_OFFLINE_SCANS),
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
  id: ObjectId,
  eventId: ObjectId,
  reservationId: ObjectId.nullable(),
  braceletId: ObjectId.nullable(),
  method: ScanMethod,
  direction: ScanDirection,
  result: ScanResult,
  admitted: z.boolean().openapi({ description: "Whether the person goes through (admitted or exited)" }),
  attendeeName: z.string().nullable(),
  deviceId: z.string(),
  nonce: z.string(),
  scannedAt: timestamp,
  recordedAt: timestamp,
  offline: z.boolean(),
  outsideEventWindow: z.boolean().openapi({
    description: "An offline scan made more than 6 hours before the event starts or after it ends: decided as usual, flagged for the " +
      "host to check (a device clock or an old batch)",
  }),
  evidence: z.unknown().nullable().openapi({ description: "The holdings read that decided an NFT-gated entry" }),
  undoneAt: timestamp.nullable(),
  replayed: z.boolean().openapi({ description: "true: this device and nonce were recorded before; this is that first outcome" }),
}).openapi("CheckInScan");

export const OfflineBatchResultSchema = z.object({
  items: z.array(ScanSchema).openapi({ description: "The recorded scans, in the order they were made (scannedAt)" }),
  admitted: z.number().int(),
  refused: z.number().int(),
  replayed: z.number().int(),
}).openapi("OfflineScanBatchResult");

export const CountsSchema = z.object({
  eventId: ObjectId,
  capacity: z.number().int().nullable(),
  approved: z.number().int(),
  pending: z.number().int(),
  waitlisted: z.number().int(),
  checkedIn: z.number().int().openapi({ description: "Approved reservations admitted at least once" }),
  insideNow: z.number().int(),
}).openapi("CheckInCounts");

const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi("TicketKeys");
export const TicketKeysSchema = Jwks;

export const ManifestSchema = z.object({
  eventId: ObjectId,
  generatedAt: timestamp,
  keys: Jwks,
  tickets: z.array(z.object({
    reservationId: ObjectId,
    ticketVersion: z.number().int(),
    attendeeName: z.string(),
    inside: z.boolean(),
    braceletUids: z.array(z.string()),
  })),
}).openapi("CheckInManifest");

export const BraceletSchema = z.object({
  id: ObjectId,
  eventId: ObjectId,
  uid: z.string().openapi({ description: "Upper-case hex without separators" }),
  reservationId: ObjectId,
  kind: z.enum(["plain", "sun"]),
  status: z.enum(["bound", "unbound", "lost"]),
  lastCounter: z.number().int().nullable(),
  boundAt: timestamp,
  releasedAt: timestamp.nullable(),
}).openapi("Bracelet");

export const BindBraceletSchema = z.object({
  reservationId: ObjectId,
  uid: BraceletUid,
  kind: z.enum(["plain", "sun"]).default("plain").openapi({
    description: "plain: the UID alone, which any NFC phone can copy onto another tag; sun: an NTAG 424 DNA bracelet whose " +
      "scans send a SUN message (an AES-CMAC over the UID and a read counter), which cannot be forged and whose replays are refused",
  }),
}).strict().openapi("BindBracelet", { example: { reservationId: "65f1c0a2b3d4e5f601234567", uid: "04:A2:3B:4C:5D:6E:7F", kind: "plain" } });

export const AccessSchema = z.object({
  eventId: ObjectId,
  view: z.boolean(),
  register: z.boolean(),
  checkIn: z.boolean(),
  evidence: z.array(Evidence).openapi({ description: "The reads made now, one per access rule" }),
}).openapi("EventAccess");
